package config

import (
	"cmp"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// leaves flattens errors.Join trees into their single errors, dropping
// nils.
func leaves(errs ...error) []error {
	var out []error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if parts, ok := joined(err); ok {
			out = append(out, leaves(parts...)...)
			continue
		}
		out = append(out, err)
	}
	return out
}

// joined returns the parts of an errors.Join error: one whose text is its
// parts' texts a line each (unlike fmt.Errorf("%w: %w"), which also
// unwraps to several errors).
func joined(err error) ([]error, bool) {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return nil, false
	}
	parts := j.Unwrap()
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.Error()
	}
	return parts, strings.Join(texts, "\n") == err.Error()
}

// keyOf returns the key an error names, "" when it names none.
func keyOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Key
	}
	return ""
}

// addNew returns errs with the errors of err whose key none of errs names.
func addNew(errs []error, err error) []error {
	seen := map[string]bool{}
	for _, e := range leaves(errs...) {
		seen[keyOf(e)] = true
	}
	for _, e := range leaves(err) {
		if k := keyOf(e); k == "" || !seen[k] {
			errs = append(errs, e)
		}
	}
	return errs
}

var fileLine = regexp.MustCompile(`^(.*):(\d+)$`)

// sortErrors joins errs in the order a person fixes them: the file's, by
// line, then the flags', the environment's and those of no single source,
// each in the order found. It returns nil when there is none.
func sortErrors(errs []error) error {
	all := leaves(errs...)
	type ranked struct {
		err  error
		file string
		line int // 0: not at a line of a file
	}
	rs := make([]ranked, len(all))
	for i, err := range all {
		rs[i].err = err
		var e *Error
		if errors.As(err, &e) {
			if m := fileLine.FindStringSubmatch(e.Pos); m != nil {
				rs[i].file = m[1]
				rs[i].line, _ = strconv.Atoi(m[2])
			}
		}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		if a.line == 0 || b.line == 0 {
			return boolCmp(a.line == 0, b.line == 0)
		}
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line))
	})
	out := make([]error, len(rs))
	for i, r := range rs {
		out[i] = r.err
	}
	return errors.Join(out...)
}

// boolCmp orders false before true.
func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
