// Package outcome reads what the conformance runner (connectconformance
// -v, v1.0.7) prints: how many cases each server configuration ran, by
// protocol, the outcome of every case it names, and its summary.
package outcome

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// A Kind is the outcome of a case the runner names.
type Kind int

const (
	// Failed: it failed and was not known to ("FAILED: NAME:").
	Failed Kind = iota
	// KnownFailing: it failed as --known-failing said ("INFO: NAME failed
	// (as expected):").
	KnownFailing
	// UnexpectedPass: it passed but --known-failing said it fails
	// ("FAILED: NAME was expected to fail but did not").
	UnexpectedPass
)

// A Run is one run of the runner.
type Run struct {
	// Cases is how many cases ran, by protocol (Protocol's names).
	Cases map[string]int
	// Named is the outcome of each case the runner names; the others
	// passed.
	Named map[string]Kind
	// Summary is the runner's summary, from "Total cases:" on.
	Summary []string
	// NotRun is how many cases the runner could not run (its client
	// timed out or exited).
	NotRun int
}

var (
	running    = regexp.MustCompile(`^Running (\d+) tests with .* for server config #\d+ \{[^,]*, (PROTOCOL_\w+),`)
	failed     = regexp.MustCompile(`^FAILED: (.*):$`)
	unexpected = regexp.MustCompile(`^FAILED: (.*) was expected to fail but did not$`)
	known      = regexp.MustCompile(`^INFO: (.*) failed \(as expected\):$`)
	notRun     = regexp.MustCompile(`^Another (\d+) could not be run`)
)

// Read reads the runner's output. It fails when the output has no
// summary, or names a case of no known protocol.
func Read(r io.Reader) (*Run, error) {
	run := &Run{Cases: map[string]int{}, Named: map[string]Kind{}}
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for lines.Scan() {
		line := lines.Text()
		if m := running.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			run.Cases[protocolNames[m[2]]] += n
		} else if m := unexpected.FindStringSubmatch(line); m != nil {
			run.Named[m[1]] = UnexpectedPass
		} else if m := failed.FindStringSubmatch(line); m != nil {
			run.Named[m[1]] = Failed
		} else if m := known.FindStringSubmatch(line); m != nil {
			run.Named[m[1]] = KnownFailing
		} else if strings.HasPrefix(line, "Total cases:") || len(run.Summary) > 0 {
			if strings.TrimSpace(line) != "" {
				run.Summary = append(run.Summary, line)
			}
			if m := notRun.FindStringSubmatch(line); m != nil {
				run.NotRun, _ = strconv.Atoi(m[1])
			}
		}
	}
	if err := lines.Err(); err != nil {
		return nil, err
	}
	if len(run.Summary) == 0 {
		return nil, fmt.Errorf("no summary (Total cases:) in the runner's output")
	}
	for name := range run.Named {
		if Protocol(name) == "" {
			return nil, fmt.Errorf("%s: of no known protocol", name)
		}
	}
	return run, nil
}

// protocolNames are the protocols' names in Protocol's words.
var protocolNames = map[string]string{
	"PROTOCOL_CONNECT":  "Connect",
	"PROTOCOL_GRPC":     "gRPC",
	"PROTOCOL_GRPC_WEB": "gRPC-Web",
}

// Protocols are the protocols, in the order reports list them.
var Protocols = []string{"Connect", "gRPC", "gRPC-Web"}

// Protocol is the protocol of a case, by name: its Protocol: axis, or for
// the suites of one protocol, which have none, the suite's name
// ("Connect …", "gRPC-Web …", "gRPC …"); "" if neither says.
func Protocol(name string) string {
	for _, c := range strings.Split(name, "/") {
		if p, ok := strings.CutPrefix(c, "Protocol:"); ok {
			return protocolNames[p]
		}
	}
	suite, _, _ := strings.Cut(name, "/")
	for _, p := range []string{"gRPC-Web", "gRPC", "Connect"} { // gRPC-Web before gRPC
		if strings.HasPrefix(suite, p+" ") {
			return p
		}
	}
	return ""
}
