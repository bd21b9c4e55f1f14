// Command conformance-report reads the output of conformance runs
// (connectconformance -v) and prints, for each, the runner's summary and
// a table of its outcomes by protocol. With -update it also regenerates
// the known-failing list from the runs, which must have been made with
// --known-failing '**' (so that the runner names every case): the cases
// that failed in every run, but those the -flaky list's patterns match
// (written by hand), each block's patterns made anew from the cases its
// selectors select (see internal/knownfailing). It fails, writing
// nothing, when a case failed in some runs only and the -flaky list does
// not have it, when a failing case has no reason, or when a case was not
// run.
//
//	conformance-report -mode remote OUTPUT
//	conformance-report -mode remote -update known-failing-remote.txt -flaky known-flaky-remote.txt OUTPUT...
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/protorest/protorest/e2e/conformance/internal/outcome"
	"github.com/protorest/protorest/e2e/conformance/internal/pattern"
)

func main() {
	mode := flag.String("mode", "", "the mode's name, for the headings")
	update := flag.String("update", "", "regenerate this known-failing list from the runs")
	flaky := flag.String("flaky", "", "with -update: the list of flaky cases (read, not written)")
	flag.Parse()
	if flag.NArg() == 0 || (*flaky != "") != (*update != "") {
		fmt.Fprintln(os.Stderr, "usage: conformance-report [-mode NAME] [-update FILE -flaky FILE] OUTPUT...")
		os.Exit(2)
	}
	if err := run(os.Stdout, *mode, flag.Args(), *update, *flaky); err != nil {
		fmt.Fprintln(os.Stderr, "conformance-report:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, mode string, outputs []string, update, flaky string) error {
	var runs []*outcome.Run
	for _, output := range outputs {
		r, err := read(output)
		if err != nil {
			return err
		}
		printTable(w, mode, r)
		runs = append(runs, r)
	}
	if update == "" {
		return nil
	}
	for i, r := range runs {
		if r.NotRun > 0 {
			return fmt.Errorf("%s: %d cases were not run: no list can be made from it", outputs[i], r.NotRun)
		}
	}
	failing, sometimes, passing := outcome.Split(runs)
	fmt.Fprintf(w, "conformance (%s): over %d runs, %d cases failed every time, %d some times, %d passed every time\n",
		mode, len(runs), len(failing), len(sometimes), len(passing))
	flakyList, err := parse(flaky)
	if err != nil {
		return err
	}
	flakyPatterns := flakyList.Patterns()
	var unlisted []string
	for _, name := range sometimes {
		if !pattern.MatchAny(flakyPatterns, name) {
			unlisted = append(unlisted, name)
		}
	}
	if len(unlisted) > 0 {
		for _, name := range unlisted {
			fmt.Fprintln(w, "  flaky:", name)
		}
		return fmt.Errorf("%s: %d case(s) failed in some runs only: add patterns (and a reason) for them", flaky, len(unlisted))
	}
	// The cases the flaky list has are left out of the known-failing one:
	// the runner refuses a case in both.
	var cases, others []string
	for _, name := range failing {
		if pattern.MatchAny(flakyPatterns, name) {
			others = append(others, name)
		} else {
			cases = append(cases, name)
		}
	}
	others = append(append(others, sometimes...), passing...)
	write, err := updateList(w, update, cases, others)
	if err != nil {
		return err
	}
	return write()
}

// read reads one run's output.
func read(output string) (*outcome.Run, error) {
	f, err := os.Open(output)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := outcome.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", output, err)
	}
	return r, nil
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
