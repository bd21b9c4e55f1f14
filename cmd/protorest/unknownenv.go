package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
)

// An unknownVariable is a variable of the environment that looks like
// protorest's (it starts with PROTOREST_, in any case) but is none of
// them: a typo, or one a newer or older protorest reads. It is ignored,
// not an error, so that a pod does not crash-loop on it. nearest is the
// known variable it is closest to, when one is close; "" otherwise.
//
// No other tool is known to read PROTOREST_ variables. The repository's
// own tests read PROTOREST_STREAM_MIB, which the binary does not.
type unknownVariable struct{ name, nearest string }

func (v unknownVariable) String() string {
	if v.nearest == "" {
		return v.name + " is not a protorest variable, ignored"
	}
	return v.name + " is not a protorest variable, ignored; did you mean " + v.nearest + "?"
}

// logUnknownVariables logs a warning for each unknown variable of
// environ, with the nearest known one (did_you_mean) when there is one.
func logUnknownVariables(log *slog.Logger, environ []string) {
	for _, v := range unknownVariables(environ, protorestVariables()) {
		attrs := []any{"variable", v.name}
		if v.nearest != "" {
			attrs = append(attrs, "did_you_mean", v.nearest)
		}
		log.Warn("not a protorest variable, ignored", attrs...)
	}
}

// printUnknownVariables writes a warning line to w for each unknown
// variable of environ, for a command without a logger.
func printUnknownVariables(w io.Writer, command string, environ []string) {
	for _, v := range unknownVariables(environ, protorestVariables()) {
		fmt.Fprintf(w, "protorest %s: warning: %s\n", command, v)
	}
}

// withUnknownVariables adds the unknown variables of environ to err, a
// usage error, which may be their doing (PROTOREST_UPSTREM: "--upstream
// is required"): it is the one line a command that stops prints.
func withUnknownVariables(err error, environ []string) error {
	var usage usageError
	if !errors.As(err, &usage) {
		return err
	}
	var notes []string
	for _, v := range unknownVariables(environ, protorestVariables()) {
		notes = append(notes, v.String())
	}
	if len(notes) == 0 {
		return err
	}
	return usageError{fmt.Errorf("%w (%s)", err, strings.Join(notes, "; "))}
}

// unknownVariables returns the variables of environ (KEY=VALUE, as
// os.Environ gives them) that start with PROTOREST_ but are not in known,
// in the order of environ.
func unknownVariables(environ, known []string) []unknownVariable {
	var out []unknownVariable
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(strings.ToUpper(name), envPrefix) || slices.Contains(known, name) {
			continue
		}
		out = append(out, unknownVariable{name: name, nearest: nearestName(name, known)})
	}
	return out
}

// protorestVariables are the variables of every command's flags: serve's
// and openapi's own, and serve's profiles (profile.go). A variable of one
// is known to the other, which ignores it.
func protorestVariables() []string {
	names := []string{cpuProfileVariable, memProfileVariable}
	var output, format string
	for _, specs := range [][]flagSpec{serveFlags(newServeConfig()), openapiFlags(newServeConfig(), &output, &format)} {
		for _, f := range specs {
			if n := envName(f.name); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// nearestName is the name among known closest to name, ignoring case, if
// it is within two edits, one more for every five letters after the first
// five past PROTOREST_ (UPSTREAM_TSL: three). The first in known wins a
// tie.
func nearestName(name string, known []string) string {
	upper := strings.ToUpper(name)
	best, limit := "", 2+max(0, len(upper)-len(envPrefix)-5)/5
	for _, k := range known {
		if d := editDistance(upper, k); d <= limit {
			best, limit = k, d-1
		}
	}
	return best
}

// editDistance is the number of one-letter insertions, deletions,
// substitutions and swaps of neighbours that turn a into b (the optimal
// string alignment distance), by bytes.
func editDistance(a, b string) int {
	// Three rows of the table: two back, the last, and this one.
	prev2, prev, row := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			row[j] = min(prev[j]+1, row[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				row[j] = min(row[j], prev2[j-2]+1)
			}
		}
		prev2, prev, row = prev, row, prev2
	}
	return prev[len(b)]
}
