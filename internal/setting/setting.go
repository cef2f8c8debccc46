// Package setting describes the numeric settings of airlock's owners
// (invoker.Policy, sandbox.Limits) once: each owner declares a table of its
// fields — key, kind, default, bounds — and gets defaults, validation,
// parsing from text (config files, flags, environment, HTTP requests),
// formatting, and the "a request may tighten, never loosen, unless a ceiling
// allows" merge from it. Sizes and durations are written and read by the
// rules here only.
//
// # Concurrency
//
// A Table is immutable once built and safe for concurrent use.
//
// # Errors
//
// Parse and Check return errors that name the setting by its key.
package setting

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Kind says how a setting's value is written and read.
type Kind uint8

// Kinds of settings.
const (
	// Count is a plain whole number.
	Count Kind = iota
	// Bytes is a size: a whole number of bytes or a number with a unit
	// (KiB, MiB, GiB; KB, MB, GB; B).
	Bytes
	// Duration is a time.Duration written like "30s" or "1m30s".
	Duration
	// Level is an ordered enumeration with its own Parse and Format (a
	// risk level).
	Level
)

// ErrUnknownKey is returned (wrapped) by Table.Parse for a key the table
// does not hold.
var ErrUnknownKey = errors.New("unknown setting")

// KeyError is a value refused by Check, Tighten or Below (or an owner's own
// rule): Key names the setting.
type KeyError struct {
	Key string
	Msg string // the whole message, which starts with Key
}

func (e *KeyError) Error() string { return e.Msg }

// Errorf returns a *KeyError for key with a message that starts with key.
func Errorf(key, format string, args ...any) error {
	return &KeyError{Key: key, Msg: key + " " + fmt.Sprintf(format, args...)}
}

// Field is one setting of an owner type T.
type Field[T any] struct {
	// Key is the setting's name in config files, flags, the environment and
	// requests, such as "memory" or "call_timeout".
	Key string
	// Kind says how the value is written.
	Kind Kind
	// Doc is one line saying what the setting bounds.
	Doc string
	// Default replaces a zero value.
	Default int64
	// Min and Max bound an effective value (after defaults), inclusive.
	// Max 0 means no upper bound.
	Min, Max int64
	// Get and Set read and write the field of a T.
	Get func(*T) int64
	Set func(*T, int64)
	// ParseLevel and FormatLevel read and write a Level value.
	ParseLevel  func(string) (int64, error)
	FormatLevel func(int64) string
}

// Table is the list of an owner's settings, in documentation order.
type Table[T any] []Field[T]

// Number is the set of Go types a setting's field may have.
type Number interface {
	~int | ~int32 | ~int64 | ~uint32 | ~uint64
}

// Of returns a Field of kind k whose value is the V that field returns a
// pointer to.
func Of[T any, V Number](key string, k Kind, def V, field func(*T) *V, doc string) Field[T] {
	return Field[T]{
		Key: key, Kind: k, Doc: doc, Default: int64(def),
		Get: func(t *T) int64 { return int64(*field(t)) },
		Set: func(t *T, v int64) { *field(t) = V(v) },
	}
}

// Within returns f with its bounds set.
func (f Field[T]) Within(min, max int64) Field[T] {
	f.Min, f.Max = min, max
	return f
}

// Lookup returns the field named key.
func (tb Table[T]) Lookup(key string) (*Field[T], bool) {
	for i := range tb {
		if tb[i].Key == key {
			return &tb[i], true
		}
	}
	return nil, false
}

// Keys returns the keys in table order.
func (tb Table[T]) Keys() []string {
	out := make([]string, len(tb))
	for i, f := range tb {
		out[i] = f.Key
	}
	return out
}

// WithDefaults sets every zero field of t to its default.
func (tb Table[T]) WithDefaults(t *T) {
	for _, f := range tb {
		if f.Get(t) == 0 {
			f.Set(t, f.Default)
		}
	}
}

// Or sets every zero field of t to src's value.
func (tb Table[T]) Or(t *T, src T) {
	for _, f := range tb {
		if f.Get(t) == 0 {
			f.Set(t, f.Get(&src))
		}
	}
}

// Check reports the first field of t (defaults filled in by the caller)
// outside its bounds, naming it by key.
func (tb Table[T]) Check(t *T) error {
	for _, f := range tb {
		v := f.Get(t)
		switch {
		case v < 0 || v < f.Min:
			if f.Min <= 0 {
				return Errorf(f.Key, "(%s) must not be negative", f.Format(v))
			}
			return Errorf(f.Key, "(%s) must be at least %s", f.Format(v), f.Format(f.Min))
		case f.Max != 0 && v > f.Max:
			return Errorf(f.Key, "(%s) must be at most %s", f.Format(v), f.Format(f.Max))
		}
	}
	return nil
}

// Parse sets the field named key of t from text written as that field's
// kind. A zero value means the default.
func (tb Table[T]) Parse(t *T, key, text string) error {
	f, ok := tb.Lookup(key)
	if !ok {
		return fmt.Errorf("%w %q (known: %s)", ErrUnknownKey, key, strings.Join(tb.Keys(), ", "))
	}
	v, err := f.Parse(text)
	if err != nil {
		return err
	}
	f.Set(t, v)
	return nil
}

// Parse reads text written as f's kind.
func (f *Field[T]) Parse(text string) (int64, error) {
	switch f.Kind {
	case Bytes:
		return ParseSize(text)
	case Duration:
		d, err := ParseDuration(text)
		return int64(d), err
	case Level:
		return f.ParseLevel(text)
	}
	return ParseCount(text)
}

// Format writes v as f's kind.
func (f *Field[T]) Format(v int64) string {
	switch f.Kind {
	case Bytes:
		return FormatSize(v)
	case Duration:
		return time.Duration(v).String()
	case Level:
		return f.FormatLevel(v)
	}
	return strconv.FormatInt(v, 10)
}

// Tighten returns base with every non-zero field of req applied. A field may
// rise above base's value only up to ceiling's value for it; a zero ceiling
// field means base's value, so without a ceiling a request may only lower a
// setting. Every setting is read so that larger means looser. The error
// names the first field refused.
func (tb Table[T]) Tighten(base, req, ceiling T) (T, error) {
	out := base
	for _, f := range tb {
		v := f.Get(&req)
		if v == 0 {
			continue
		}
		max, owner := f.Get(&ceiling), "the operator's limit"
		if max == 0 {
			max, owner = f.Get(&base), "this server's value"
		}
		if v > max {
			return base, Errorf(f.Key, "%s is above %s of %s", f.Format(v), owner, f.Format(max))
		}
		f.Set(&out, v)
	}
	return out, nil
}

// Below reports the first non-zero field of ceiling below the effective
// value in t: a ceiling that would refuse the configured values themselves.
func (tb Table[T]) Below(ceiling, t T) error {
	for _, f := range tb {
		if c := f.Get(&ceiling); c != 0 && c < f.Get(&t) {
			return Errorf(f.Key, "%s is below the configured value %s; raise it or lower the configured value", f.Format(c), f.Format(f.Get(&t)))
		}
	}
	return nil
}

// Doc describes one setting for documentation and `airlock config keys`.
type Doc struct {
	Key     string
	Kind    Kind
	Default string
	Doc     string
	// Min and Max are the field's bounds written out; "" when it has none
	// (a Min of 0 or less, a Max of 0).
	Min, Max string
}

// Docs returns the table's settings with their defaults and bounds
// written out.
func (tb Table[T]) Docs() []Doc {
	out := make([]Doc, len(tb))
	for i := range tb {
		f := &tb[i]
		out[i] = Doc{Key: f.Key, Kind: f.Kind, Default: f.Format(f.Default), Doc: f.Doc}
		if f.Min > 0 {
			out[i].Min = f.Format(f.Min)
		}
		if f.Max != 0 {
			out[i].Max = f.Format(f.Max)
		}
	}
	return out
}

// Map returns every field of t written as text, by key.
func (tb Table[T]) Map(t *T) map[string]string {
	out := make(map[string]string, len(tb))
	for i := range tb {
		out[tb[i].Key] = tb[i].Format(tb[i].Get(t))
	}
	return out
}

// ParseCount reads a whole number (underscores allowed between digits).
func ParseCount(s string) (int64, error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n > math.MaxInt32 {
		return 0, fmt.Errorf("%q is not a whole number (at most %d)", s, math.MaxInt32)
	}
	if n < 0 {
		return 0, fmt.Errorf("%q must not be negative", s)
	}
	return n, nil
}

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
	{"B", 1},
}

// ParseSize reads a number of bytes: a whole number, or one with a unit,
// such as "4096", "512KiB" or "64MiB". Negative sizes are refused.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(t, "_", ""), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size (write e.g. 4096, 512KiB or 64MiB)", s)
	}
	if n < 0 {
		return 0, fmt.Errorf("%q must not be negative", s)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n * mult, nil
}

// FormatSize writes n with the largest binary unit that divides it exactly.
func FormatSize(n int64) string {
	for _, u := range [...]struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseDuration reads a duration such as "30s", "1m30s" or "250ms"; a bare
// "0" is accepted. Negative durations are refused.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (write e.g. 30s, 1m30s or 250ms)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q must not be negative", s)
	}
	return d, nil
}
