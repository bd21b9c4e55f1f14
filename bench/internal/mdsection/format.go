package mdsection

import (
	"math"
	"strconv"
	"strings"
)

// Sig formats v with 3 significant digits (at least the integer part),
// with thousands separators.
func Sig(v float64) string {
	if v == 0 {
		return "0"
	}
	digits := 3 - int(math.Floor(math.Log10(math.Abs(v)))) - 1
	if digits < 0 {
		digits = 0
	}
	return Commas(strconv.FormatFloat(v, 'f', digits, 64))
}

// Commas puts thousands separators into a formatted number.
func Commas(s string) string {
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

// A Table is a Markdown table.
type Table struct {
	Head  []string
	Align string // per column: 'l' or 'r'
	Rows  [][]string
}

// Add adds a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// String is the table in Markdown.
func (t *Table) String() string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(t.Head, " | ") + " |\n|")
	for i := range t.Head {
		if i < len(t.Align) && t.Align[i] == 'r' {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}
