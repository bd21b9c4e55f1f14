package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sig formats v with 3 significant digits (at least the integer part),
// with thousands separators.
func sig(v float64) string {
	if v == 0 {
		return "0"
	}
	digits := 3 - int(math.Floor(math.Log10(math.Abs(v)))) - 1
	if digits < 0 {
		digits = 0
	}
	return commas(strconv.FormatFloat(v, 'f', digits, 64))
}

// commas puts thousands separators into a formatted number.
func commas(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

// fmtTime formats nanoseconds.
func fmtTime(ns float64) string {
	switch {
	case ns >= 1e9:
		return sig(ns/1e9) + " s"
	case ns >= 1e6:
		return sig(ns/1e6) + " ms"
	case ns >= 1e3:
		return sig(ns/1e3) + " µs"
	}
	return sig(ns) + " ns"
}

// fmtBytes formats a byte count.
func fmtBytes(b float64) string {
	switch {
	case b >= 1<<20:
		return sig(b/(1<<20)) + " MiB"
	case b >= 10<<10:
		return sig(b/(1<<10)) + " KiB"
	}
	return commas(strconv.FormatFloat(b, 'f', -1, 64)) + " B"
}

// fmtCount formats an allocation count (a median of an even number of
// samples can end in .5).
func fmtCount(n float64) string {
	return commas(strconv.FormatFloat(n, 'f', -1, 64))
}

// fmtRatio formats a ratio: 0.42×, 1.05×, 12.3×.
func fmtRatio(r float64) string {
	if r >= 10 {
		return strconv.FormatFloat(r, 'f', 1, 64) + "×"
	}
	return strconv.FormatFloat(r, 'f', 2, 64) + "×"
}

// fmtValue formats v in unit.
func fmtValue(v float64, unit string) string {
	switch unit {
	case "ns/op":
		return fmtTime(v)
	case "B/op":
		return fmtBytes(v)
	case "allocs/op":
		return fmtCount(v)
	case "msgs/s":
		if v >= 1e4 {
			return sig(v/1e3) + " k msgs/s"
		}
	}
	return sig(v) + " " + unit
}

// A table is a Markdown table.
type table struct {
	head  []string
	align string // per column: 'l' or 'r'
	rows  [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) String() string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(t.head, " | ") + " |\n|")
	for i := range t.head {
		if i < len(t.align) && t.align[i] == 'r' {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}

// cell formats view's value of name in unit, or "—".
func cell(v View, name, unit string) string {
	x, ok := v.Get(name, unit)
	if !ok {
		return "—"
	}
	return fmtValue(x, unit)
}

// ratioCell formats a/b in unit, or "—".
func ratioCell(v View, a, b, unit string) string {
	r, ok := v.Ratio(a, b, unit)
	if !ok {
		return "—"
	}
	return fmtRatio(r)
}

// fmtInt formats n with thousands separators.
func fmtInt(n int) string { return commas(fmt.Sprint(n)) }
