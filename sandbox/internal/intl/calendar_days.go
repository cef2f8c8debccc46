package intl

import (
	"math/bits"
	"slices"
	"time"
)

// The day arithmetic of the Persian, Hebrew, Indian, Umm al-Qura, Coptic
// and Ethiopic calendars, from their published definitions; where ICU 78
// departs from a definition by data (the Persian leap years from 1502 AP,
// the Umm al-Qura years 1300 to 1600 AH), from the facts internal/genicu
// reads off Node into calendars_icu_gen.go. Each takes a Julian day number
// in Date's range (±100,000,000 days of 1970), so no sum here overflows.

// persianEpoch is the Julian day number of 1 Farvardin 1 AP (19 March 622,
// Julian).
const persianEpoch = 1948320

// persianStart is the Julian day number of 1 Farvardin of Persian year y:
// the 33-year arithmetic (8 leap years in 33, y leap when (25y+11) mod 33
// < 8), but a year of persianNonLeap is not leap and the year after it is.
func persianStart(y int64) int64 {
	s := persianEpoch + 365*(y-1) + floorDiv(8*y+21, 33)
	if _, found := slices.BinarySearch(persianNonLeap, int32(y-1)); found {
		s--
	}
	return s
}

// persianDay numbers a day of the Persian (solar Hijri) calendar: six
// months of 31 days, five of 30, and Esfand of 29 or 30; one era, AP.
func persianDay(jdn int64) calDate {
	y := floorDiv(33*(jdn-persianEpoch)+3, 12053) + 1
	for persianStart(y) > jdn {
		y--
	}
	for persianStart(y+1) <= jdn {
		y++
	}
	doy := int(jdn - persianStart(y))
	if doy < 186 {
		return ymd(0, int(y), doy/31+1, doy%31+1)
	}
	doy -= 186
	return ymd(0, int(y), doy/30+7, doy%30+1)
}

// hebrewElapsed is the number of days from the Hebrew epoch to the
// molad-determined new year of year y, before the postponements that
// depend on the neighbouring years: months since the epoch (235 in 19
// years), the molad in parts (1080 to the hour), a day later when the
// molad falls on Sunday, Wednesday or Friday.
func hebrewElapsed(y int64) int64 {
	months := floorDiv(235*y-234, 19)
	parts := 12084 + 13753*months
	day := 29*months + floorDiv(parts, 25920)
	if (3*(day+1))%7 < 3 {
		day++
	}
	return day
}

// hebrewStart is the Julian day number of 1 Tishri of Hebrew year y.
func hebrewStart(y int64) int64 {
	prev, cur, next := hebrewElapsed(y-1), hebrewElapsed(y), hebrewElapsed(y+1)
	switch {
	case next-cur == 356:
		cur += 2
	case cur-prev == 382:
		cur++
	}
	return 347998 + cur
}

// hebrewLeap reports whether Hebrew year y has 13 months (7 in 19).
func hebrewLeap(y int64) bool { return (7*y + 1 - 19*floorDiv(7*y+1, 19)) < 7 }

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// hebrewDay numbers a day of the Hebrew calendar. Its months are numbered
// from Tishri; Adar I is the sixth in a leap year only, so the month after
// Shevat is the sixth in a common year (Adar) and in a leap year Adar I,
// with Adar II the seventh. CLDR names months 1 to 13 with Adar I the
// sixth and Adar the seventh, and Adar II (7-yeartype-leap) after them.
func hebrewDay(jdn int64) calDate {
	y := floorDiv(98496*(jdn-347998), 35975351) + 1 // mean year 35975351/98496 days
	for hebrewStart(y) > jdn {
		y--
	}
	for hebrewStart(y+1) <= jdn {
		y++
	}
	start := hebrewStart(y)
	length := hebrewStart(y+1) - start
	leap := hebrewLeap(y)
	// Tishri … Elul with Adar I; Heshvan is long in complete years
	// (355, 385 days), Kislev short in deficient ones (353, 383).
	lengths := [13]int64{30, 29, 30, 29, 30, 30, 29, 30, 29, 30, 29, 30, 29}
	if length%10 == 5 {
		lengths[1] = 30
	}
	if length%10 == 3 {
		lengths[2] = 29
	}
	doy := jdn - start
	i := 0
	for ; i < 12; i++ {
		if i == 5 && !leap {
			continue
		}
		if doy < lengths[i] {
			break
		}
		doy -= lengths[i]
	}
	num, name := i+1, i
	if !leap && i >= 6 {
		num--
	}
	if leap && i == 6 {
		name = 13 // Adar II
	}
	return calDate{0, int(y), num, int(doy) + 1, name}
}

// indianDay numbers a day of the Indian national (Saka) calendar: its year
// starts on 22 March (21 March in a Gregorian leap year) of the
// proleptic Gregorian year 78 after its number; Chaitra has 30 days (31
// in those years), the next five months 31 and the last six 30. One era,
// Saka.
func indianDay(t time.Time) calDate {
	gy := t.Year()
	leap := gy%4 == 0 && (gy%100 != 0 || gy%400 == 0)
	first := 22
	if leap {
		first = 21
	}
	yday := t.YearDay() - 1 // days since 1 January
	start := 31 + 28 + int(b2i(leap)) + first - 1
	y := gy - 78
	if yday < start {
		// The Saka year began in the Gregorian year before.
		y--
		py := gy - 1
		pleap := py%4 == 0 && (py%100 != 0 || py%400 == 0)
		days := 365 + int(b2i(pleap))
		pfirst := 22
		if pleap {
			pfirst = 21
		}
		yday += days
		start = 31 + 28 + int(b2i(pleap)) + pfirst - 1
		leap = pleap
	}
	doy := yday - start
	chaitra := 30 + int(b2i(leap))
	if doy < chaitra {
		return ymd(0, y, 1, doy+1)
	}
	doy -= chaitra
	if doy < 5*31 {
		return ymd(0, y, doy/31+2, doy%31+1)
	}
	doy -= 5 * 31
	return ymd(0, y, doy/30+7, doy%30+1)
}

// copticEpoch and ethiopicEpoch are the Julian day numbers of the first
// day of year 1: 29 August 284 and 29 August 8 (Julian).
const (
	copticEpoch   = 1825030
	ethiopicEpoch = 1724221
)

// copticDay numbers a day of the Coptic calendar's arithmetic, which the
// Ethiopic shares, from days since the epoch: twelve months of 30 days and
// a thirteenth of 5, 6 in the year before a year divisible by 4.
func copticDay(days int64) (y, m, d int) {
	yy := floorDiv(4*days+1463, 1461)
	doy := days - (365*(yy-1) + floorDiv(yy, 4))
	return int(yy), int(doy/30) + 1, int(doy%30) + 1
}

// umalquraDay numbers a day of the Umm al-Qura calendar: the years ICU
// tables (calendars_icu_gen.go) by their months' lengths, the others as
// the tabular civil calendar.
func umalquraDay(jdn int64) calDate {
	days := jdn - 2440588
	last := len(umalquraStart) - 1
	end := int64(umalquraStart[last]) + 12*29 + int64(bits.OnesCount16(umalquraMonths[last]))
	if days < int64(umalquraStart[0]) || days >= end {
		return islamicDay(jdn - 1948440)
	}
	i, found := slices.BinarySearch(umalquraStart[:], int32(days))
	if !found {
		i--
	}
	doy := days - int64(umalquraStart[i])
	m := 0
	for ; m < 11; m++ {
		n := int64(29)
		if umalquraMonths[i]&(1<<m) != 0 {
			n = 30
		}
		if doy < n {
			break
		}
		doy -= n
	}
	return ymd(0, umalquraFirst+i, m+1, int(doy)+1)
}
