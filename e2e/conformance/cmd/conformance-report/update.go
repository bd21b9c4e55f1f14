package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/protorest/protorest/e2e/conformance/internal/knownfailing"
)

// updateList regenerates the list at path for cases (others being every
// other case) and returns the function that writes it, or an error when
// a case has no reason there.
func updateList(w io.Writer, path string, cases, others []string) (func() error, error) {
	list, err := parse(path)
	if err != nil {
		return nil, err
	}
	u := list.Update(cases, others)
	for _, reason := range u.Dropped {
		fmt.Fprintf(w, "%s: no case fails for this reason any more, its block is gone: %s\n", path, reason)
	}
	if len(u.Unexplained) > 0 {
		for _, name := range u.Unexplained {
			fmt.Fprintln(w, "  no reason:", name)
		}
		return nil, fmt.Errorf("%s: %d case(s) no block selects: add a reason (and selectors) for them", path, len(u.Unexplained))
	}
	var out bytes.Buffer
	if err := list.Write(&out, u.Cases); err != nil {
		return nil, err
	}
	n := 0
	for _, b := range list.Blocks {
		n += len(b.Patterns)
	}
	fmt.Fprintf(w, "%s: %d patterns for %d cases, in %d blocks\n", path, n, len(cases), len(list.Blocks))
	return func() error { return os.WriteFile(path, out.Bytes(), 0o644) }, nil
}

// parse reads the list at path.
func parse(path string) (*knownfailing.File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	list, err := knownfailing.Parse(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return list, nil
}
