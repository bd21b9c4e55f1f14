package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// hostileSummaryPrefix starts the line TestHostile logs with its counts:
//
//	hostile summary: shapes=N in-process=N remote=N statuses=400:a,404:b panics=0 upstream-calls-on-NC=0
const hostileSummaryPrefix = "hostile summary: "

// runHostile reads the output of go test -run TestHostile -v on stdin and
// prints its summary line as a table, or says that there is none.
func runHostile(_ context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("hostile", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	fields, ok, err := hostileSummary(os.Stdin)
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintln(stdout, "Not available: `go test -run TestHostile -v -count=1 .` logged no `hostile summary:` line (the test is not in this revision).")
		return nil
	}
	t := newTable(stdout, "measure", "figure")
	for _, kv := range fields {
		t.Row(kv[0], strings.ReplaceAll(kv[1], ",", ", "))
	}
	return nil
}

// hostileSummary finds the summary line in r and splits it into key=value
// pairs, in order.
func hostileSummary(r io.Reader) ([][2]string, bool, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		_, rest, ok := strings.Cut(sc.Text(), hostileSummaryPrefix)
		if !ok {
			continue
		}
		var fields [][2]string
		for _, f := range strings.Fields(rest) {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				return nil, false, fmt.Errorf("hostile summary: %q is not key=value", f)
			}
			fields = append(fields, [2]string{k, v})
		}
		return fields, true, nil
	}
	return nil, false, sc.Err()
}
