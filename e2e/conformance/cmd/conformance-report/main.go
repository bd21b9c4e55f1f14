// Command conformance-report reads the output of a conformance run
// (connectconformance -v) and prints the runner's summary and a table of
// its outcomes by protocol. With -update FILE it also regenerates the
// known-failing list FILE from the run, which must have been made with
// --known-failing '**' (so that the runner names every case): each
// block's patterns are made anew from the failing cases its selectors
// select (see internal/knownfailing); it fails, writing nothing, when a
// failing case has no reason.
//
//	conformance-report -mode remote OUTPUT
//	conformance-report -mode remote -update known-failing-remote.txt OUTPUT
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/protorest/protorest/e2e/conformance/internal/knownfailing"
	"github.com/protorest/protorest/e2e/conformance/internal/outcome"
)

func main() {
	mode := flag.String("mode", "", "the mode's name, for the headings")
	update := flag.String("update", "", "regenerate this known-failing list from the run")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: conformance-report [-mode NAME] [-update FILE] OUTPUT")
		os.Exit(2)
	}
	if err := run(os.Stdout, *mode, flag.Arg(0), *update); err != nil {
		fmt.Fprintln(os.Stderr, "conformance-report:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, mode, output, update string) error {
	f, err := os.Open(output)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := outcome.Read(f)
	if err != nil {
		return fmt.Errorf("%s: %w", output, err)
	}
	printTable(w, mode, r)
	if update == "" {
		return nil
	}
	return updateList(w, update, r)
}

// printTable prints the runner's summary and the outcomes by protocol.
func printTable(w io.Writer, mode string, r *outcome.Run) {
	fmt.Fprintf(w, "conformance (%s): the runner's summary\n", mode)
	for _, line := range r.Summary {
		fmt.Fprintln(w, "  "+line)
	}
	fmt.Fprintf(w, "conformance (%s): by protocol\n", mode)
	fmt.Fprintf(w, "  %-9s %6s %7s %14s %7s %20s\n", "protocol", "cases", "passed", "known-failing", "failed", "unexpectedly-passed")
	var sum outcome.Tally
	tally := r.Tally()
	for _, p := range outcome.Protocols {
		t := tally[p]
		fmt.Fprintf(w, "  %-9s %6d %7d %14d %7d %20d\n", p, t.Cases, t.Passed, t.KnownFailing, t.Failed, t.UnexpectedPass)
		sum.Cases += t.Cases
		sum.Passed += t.Passed
		sum.KnownFailing += t.KnownFailing
		sum.Failed += t.Failed
		sum.UnexpectedPass += t.UnexpectedPass
	}
	fmt.Fprintf(w, "  %-9s %6d %7d %14d %7d %20d\n", "all", sum.Cases, sum.Passed, sum.KnownFailing, sum.Failed, sum.UnexpectedPass)
}

// updateList regenerates the known-failing list at path from r.
func updateList(w io.Writer, path string, r *outcome.Run) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	list, err := knownfailing.Parse(bytes.NewReader(old))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	failing, passing := r.Failing()
	u := list.Update(failing, passing)
	for _, reason := range u.Dropped {
		fmt.Fprintf(w, "%s: no case fails for this reason any more, its block is gone: %s\n", path, reason)
	}
	if len(u.Unexplained) > 0 {
		for _, name := range u.Unexplained {
			fmt.Fprintln(w, "  no reason:", name)
		}
		return fmt.Errorf("%s: %d failing case(s) no block selects: add a reason (and selectors) for them", path, len(u.Unexplained))
	}
	var out bytes.Buffer
	if err := list.Write(&out, u.Cases); err != nil {
		return err
	}
	n := 0
	for _, b := range list.Blocks {
		n += len(b.Patterns)
	}
	fmt.Fprintf(w, "%s: %d patterns for %d failing cases, in %d blocks\n", path, n, len(failing), len(list.Blocks))
	return os.WriteFile(path, out.Bytes(), 0o644)
}
