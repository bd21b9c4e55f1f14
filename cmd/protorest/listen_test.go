package main

import (
	"context"
	"net"
	"regexp"
	"strings"
	"testing"
)

// TestPortTaken: when another process holds the port of --grpc or --http
// (demo), or of --listen or --metrics-listen (serve), the command exits 1
// with one line naming the flag and a free address to give it instead.
func TestPortTaken(t *testing.T) {
	t.Parallel()
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	taken := held.Addr().String()
	for _, tt := range []struct {
		flag string
		args []string
	}{
		{"grpc", []string{"demo", "--grpc", taken, "--http", "127.0.0.1:0"}},
		{"http", []string{"demo", "--grpc", "127.0.0.1:0", "--http", taken}},
		{"listen", []string{"serve", "--upstream", freeAddr(t), "--listen", taken}},
		{"metrics-listen", []string{"serve", "--upstream", freeAddr(t), "--listen", "127.0.0.1:0", "--metrics-listen", taken}},
	} {
		var stdout, stderr syncBuffer
		code := run(context.Background(), tt.args, &stdout, &stderr)
		out := stderr.String()
		want := regexp.MustCompile(`^protorest (demo|serve): --` + tt.flag + " " + regexp.QuoteMeta(taken) + `: listen tcp ` + regexp.QuoteMeta(taken) +
			`: bind: address already in use \(another process holds it; pick another port with --` + tt.flag + ` (127\.0\.0\.1:\d+)\)\n$`)
		m := want.FindStringSubmatch(lastLine(out))
		if code != 1 || m == nil {
			t.Errorf("--%s taken: exit %d, stderr %q; want 1 and a line matching %v", tt.flag, code, out, want)
			continue
		}
		if lis, err := net.Listen("tcp", m[2]); err != nil {
			t.Errorf("--%s taken: the address suggested, %s, is not free: %v", tt.flag, m[2], err)
		} else {
			lis.Close()
		}
	}
}

// lastLine is the last line of out, with its newline: serve may log
// before it stops.
func lastLine(out string) string {
	lines := strings.SplitAfter(strings.TrimSuffix(out, "\n"), "\n")
	return lines[len(lines)-1] + "\n"
}

func TestSuggestAddr(t *testing.T) {
	t.Parallel()
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, addr := range []string{held.Addr().String(), "127.0.0.1:65535", "127.0.0.1:http"} {
		s := suggestAddr(addr)
		host, port, err := net.SplitHostPort(s)
		if err != nil || host != "127.0.0.1" || port == "0" {
			t.Errorf("suggestAddr(%q) = %q", addr, s)
		}
	}
	if s := suggestAddr("no port"); s != "no port" {
		t.Errorf("suggestAddr of no address: %q", s)
	}
}
