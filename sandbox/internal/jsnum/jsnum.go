// Package jsnum prints numbers as JavaScript does.
//
// # Concurrency
//
// Append is a pure function, safe for concurrent use.
package jsnum

import (
	"math"
	"strconv"
)

// Append appends x as ECMAScript's Number::toString (radix 10) writes it:
// "NaN", "Infinity", "-Infinity", "0" for either zero, else the shortest
// decimal that reads back as x, positional for exponents from -7 to 20 and
// d.ddde±n beyond.
func Append(dst []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(dst, "NaN"...)
	case math.IsInf(x, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(x, -1):
		return append(dst, "-Infinity"...)
	case x == 0:
		return append(dst, '0')
	case x < 0:
		dst = append(dst, '-')
		x = -x
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], x, 'e', -1, 64) // d[.ddd]e±xx
	var digits [24]byte
	k, i := 0, 0
	for ; i < len(e) && e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[k] = e[i]
			k++
		}
	}
	exp, _ := strconv.Atoi(string(e[i+1:]))
	n := exp + 1 // x = 0.digits × 10^n
	s := digits[:k]
	switch {
	case k <= n && n <= 21:
		dst = append(dst, s...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, s[:n]...)
		dst = append(dst, '.')
		dst = append(dst, s[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, s...)
	default:
		dst = append(dst, s[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, s[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}
