package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// A table prints a Markdown table: the header at once, a row per Row.
type table struct {
	w    io.Writer
	cols int
}

func newTable(w io.Writer, header ...string) *table {
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	return &table{w: w, cols: len(header)}
}

// Row prints one row; a cell's "|" and newlines are escaped so that it
// stays one cell.
func (t *table) Row(cells ...string) {
	if len(cells) != t.cols {
		panic(fmt.Sprintf("table row of %d cells under a header of %d", len(cells), t.cols))
	}
	for i, c := range cells {
		cells[i] = strings.NewReplacer("|", `\|`, "\n", " ").Replace(c)
	}
	fmt.Fprintf(t.w, "| %s |\n", strings.Join(cells, " | "))
}

// ms spells a duration in milliseconds, with a decimal below 10 ms.
func ms(d time.Duration) string {
	v := d.Seconds() * 1000
	if v < 10 {
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}
