package main

import (
	"fmt"
	"strconv"

	"github.com/protorest/protorest/bench/internal/mdsection"
)

// sig formats v with 3 significant digits (mdsection.Sig).
func sig(v float64) string { return mdsection.Sig(v) }

// commas puts thousands separators into a formatted number.
func commas(s string) string { return mdsection.Commas(s) }

// table is a Markdown table.
type table = mdsection.Table

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
