package intl

import (
	"math"
	"math/big"
	"strings"
)

// Rounding as ECMA-402 (2023) and Node 20 (V8 11.3) do it: the digit
// options (SetNumberFormatDigitOptions), the rounding modes, rounding
// increments, rounding priority and trailing zero display.

// roundingIncrements are the increments ECMA-402 allows.
var roundingIncrements = []int{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000}

// roundingModes are ECMA-402's rounding modes.
var roundingModes = []string{"ceil", "floor", "expand", "trunc", "halfCeil", "halfFloor", "halfExpand", "halfTrunc", "halfEven"}

// numOpt is a numeric option as the prelude sends it: the number itself
// when finite (not yet floored: ECMA-402 checks the range first), -1
// otherwise.
type numOpt = *float64

// digitOpt is DefaultNumberOption: absent is def, a value outside
// [lo, hi] a RangeError worded as V8's, anything else its floor.
func digitOpt(name string, v numOpt, lo, hi, def int) (int, error) {
	if v == nil {
		return def, nil
	}
	if math.IsNaN(*v) || *v < float64(lo) || *v > float64(hi) {
		return 0, rangeErr("%s value is out of range.", name)
	}
	return int(math.Floor(*v)), nil
}

// digitOptions is SetNumberFormatDigitOptions (ECMA-402 2023, 15.1.3):
// mnfdDefault and mxfdDefault are the style's fraction digits, notation
// the resolved notation. It sets res's digit fields, its rounding mode,
// increment, trailing zero display and (computed) rounding priority.
func digitOptions(o *numOptions, mnfdDefault, mxfdDefault int, notation string, res *numResolved) error {
	var err error
	if res.MinInt, err = digitOpt("minimumIntegerDigits", o.MinInt, 1, 21, 1); err != nil {
		return err
	}
	if res.RoundingIncrement, err = digitOpt("roundingIncrement", o.RoundingIncrement, 1, 5000, 1); err != nil {
		return err
	}
	valid := false
	for _, r := range roundingIncrements {
		valid = valid || r == res.RoundingIncrement
	}
	if !valid {
		return rangeErr("roundingIncrement value is out of range.")
	}
	if res.RoundingMode, err = enumOption("NumberFormat", "roundingMode", o.RoundingMode, "halfExpand", roundingModes...); err != nil {
		return err
	}
	priority, err := enumOption("NumberFormat", "roundingPriority", o.RoundingPriority, "auto", "auto", "morePrecision", "lessPrecision")
	if err != nil {
		if checkLen("roundingPriority", o.RoundingPriority) != nil {
			return err
		}
		// V8 names the abstract operation here.
		return rangeErr("Value %s out of range for SetNumberFormatDigitOptions options property roundingPriority", o.RoundingPriority)
	}
	if res.TrailingZeroDisplay, err = enumOption("NumberFormat", "trailingZeroDisplay", o.TrailingZeroDisplay, "auto", "auto", "stripIfInteger"); err != nil {
		return err
	}
	if res.RoundingIncrement != 1 {
		mxfdDefault = mnfdDefault
	}
	hasSd := o.MinSig != nil || o.MaxSig != nil
	hasFd := o.MinFrac != nil || o.MaxFrac != nil
	needSd, needFd := true, true
	if priority == "auto" {
		needSd = hasSd
		if needSd || !hasFd && notation == "compact" {
			needFd = false
		}
	}
	res.MinSig, res.MaxSig, res.MinFrac, res.MaxFrac = nil, nil, nil, nil
	if needSd {
		mn, mx := 1, 21
		if hasSd {
			if mn, err = digitOpt("minimumSignificantDigits", o.MinSig, 1, 21, 1); err != nil {
				return err
			}
			if mx, err = digitOpt("maximumSignificantDigits", o.MaxSig, mn, 21, 21); err != nil {
				return err
			}
		}
		res.MinSig, res.MaxSig = &mn, &mx
	}
	if needFd {
		mn, mx := mnfdDefault, mxfdDefault
		if hasFd {
			if mn, err = digitOpt("minimumFractionDigits", o.MinFrac, 0, maxFractionDigits, -1); err != nil {
				return err
			}
			if mx, err = digitOpt("maximumFractionDigits", o.MaxFrac, 0, maxFractionDigits, -1); err != nil {
				return err
			}
			switch {
			case mn < 0:
				mn = min(mnfdDefault, mx)
			case mx < 0:
				mx = max(mxfdDefault, mn)
			case mn > mx:
				return rangeErr("maximumFractionDigits value is out of range.")
			}
		}
		res.MinFrac, res.MaxFrac = &mn, &mx
	}
	switch {
	case !needSd && !needFd:
		one, two, zero, zero2 := 1, 2, 0, 0
		res.MinSig, res.MaxSig, res.MinFrac, res.MaxFrac = &one, &two, &zero, &zero2
		res.RoundingPriority = "morePrecision"
	case priority != "auto":
		res.RoundingPriority = priority
	default:
		res.RoundingPriority = "auto"
	}
	if res.RoundingIncrement != 1 {
		if res.RoundingPriority != "auto" || res.MaxSig != nil {
			return typeErr("RoundingType is not fractionDigits")
		}
		if *res.MaxFrac != *res.MinFrac {
			return rangeErr("maximumFractionDigits not equal to minimumFractionDigits")
		}
	}
	return nil
}

// roundTo rounds x to a multiple of incr units of its n-th digit (the
// digit of 10^(exp-n)), as mode says; x.neg picks the direction of the
// directed modes. It reports the rounded value's exponent (exp) for the
// significant digits' rounding magnitude.
func (x *dec) roundTo(n, incr int, mode string) {
	if len(x.d) == 0 || n >= len(x.d) && incr == 1 {
		return
	}
	var kept, rest []byte
	switch {
	case n <= 0:
		rest = x.d
	case n >= len(x.d):
		kept = append(append([]byte(nil), x.d...), strings.Repeat("0", n-len(x.d))...)
	default:
		kept, rest = x.d[:n], x.d[n:]
	}
	k := new(big.Int)
	if len(kept) > 0 {
		k.SetString(string(kept), 10)
	}
	bi := big.NewInt(int64(incr))
	q := new(big.Int).Mod(k, bi).Int64()
	if q == 0 && len(rest) == 0 {
		return // exact
	}
	// half compares the rest (q units and the fraction f of a unit below
	// them) with half the increment: 2q + 2f against incr.
	fHalf := -1 // f against 1/2
	if n >= 0 && len(rest) > 0 {
		switch {
		case rest[0] > '5', rest[0] == '5' && len(rest) > 1:
			fHalf = 1
		case rest[0] == '5':
			fHalf = 0
		}
	}
	half := 0
	switch diff := int64(incr) - 2*q; {
	case diff < 0:
		half = 1
	case diff == 0:
		if len(rest) > 0 {
			half = 1
		}
	case diff == 1:
		half = fHalf
	default:
		half = -1
	}
	lower := new(big.Int).Sub(k, big.NewInt(q))
	var up bool
	switch mode {
	case "ceil":
		up = !x.neg
	case "floor":
		up = x.neg
	case "expand":
		up = true
	case "trunc":
		up = false
	default:
		switch {
		case half > 0:
			up = true
		case half < 0:
			up = false
		default:
			switch mode {
			case "halfCeil":
				up = !x.neg
			case "halfFloor":
				up = x.neg
			case "halfTrunc":
				up = false
			case "halfEven":
				up = new(big.Int).Quo(lower, bi).Bit(0) == 1
			default: // halfExpand
				up = true
			}
		}
	}
	if up {
		lower.Add(lower, bi)
	}
	if lower.Sign() == 0 {
		x.d, x.exp = x.d[:0], 0
		return
	}
	s := lower.String()
	// lower counts units of 10^(exp-n): its value is 0.s × 10^(len(s)+exp-n).
	x.exp = len(s) + x.exp - n
	x.d = []byte(s)
	x.trim()
}

// roundSig is ToRawPrecision: x rounded to maxSig significant digits and
// padded to minSig; it returns the rounding magnitude.
func roundSig(res *numResolved, x *dec) (ip, fp string, mag int) {
	x.roundTo(*res.MaxSig, 1, res.RoundingMode)
	ip, fp = x.split()
	shown := max(len(x.d), x.exp)
	e := x.exp
	if len(x.d) == 0 {
		shown, e = 1, 1
	}
	if shown < *res.MinSig {
		fp += strings.Repeat("0", *res.MinSig-shown)
	}
	return ip, fp, e - *res.MaxSig
}

// roundFrac is ToRawFixed: x rounded to maxFrac fraction digits (in steps
// of the rounding increment) and padded to minFrac; it returns the
// rounding magnitude.
func roundFrac(res *numResolved, x *dec) (ip, fp string, mag int) {
	x.roundTo(x.exp+*res.MaxFrac, max(res.RoundingIncrement, 1), res.RoundingMode)
	ip, fp = x.split()
	if len(fp) < *res.MinFrac {
		fp += strings.Repeat("0", *res.MinFrac-len(fp))
	}
	return ip, fp, -*res.MaxFrac
}

// roundFor rounds x as the resolved options say (FormatNumericToString's
// rounding): by significant or fraction digits, or by both with the
// rounding priority picking the result; then trailing zeros go if the
// rounded value is an integer and trailingZeroDisplay says so.
func roundFor(res *numResolved, x *dec) (ip, fp string) {
	switch {
	case res.RoundingPriority == "morePrecision" || res.RoundingPriority == "lessPrecision":
		bySig, byFrac := *x, *x
		bySig.d = append([]byte(nil), x.d...)
		byFrac.d = append([]byte(nil), x.d...)
		sip, sfp, smag := roundSig(res, &bySig)
		fip, ffp, fmag := roundFrac(res, &byFrac)
		if (smag <= fmag) == (res.RoundingPriority == "morePrecision") {
			*x, ip, fp = bySig, sip, sfp
		} else {
			*x, ip, fp = byFrac, fip, ffp
		}
	case res.MaxSig != nil:
		ip, fp, _ = roundSig(res, x)
	default:
		ip, fp, _ = roundFrac(res, x)
	}
	if res.TrailingZeroDisplay == "stripIfInteger" && strings.Trim(fp, "0") == "" {
		fp = ""
	}
	return ip, fp
}
