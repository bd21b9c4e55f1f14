package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// runLimits prints the limits table: each flag of serve --help's Limits
// group with its default and what --help says, and the answer to one
// request that breaches it, sent to a running serve. serve fronts an
// upstream of our own (backend.go) that counts the calls it gets, so the
// table also shows which breaches never reach the upstream. A limit that
// takes time to breach (a timeout, or one that needs many connections) is
// measured on a second serve with that flag lowered, as its row says.
func runLimits(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("limits", flag.ContinueOnError)
	bin := fs.String("bin", "protorest", "the protorest binary")
	if err := fs.Parse(args); err != nil {
		return err
	}
	help, err := exec.CommandContext(ctx, *bin, "serve", "--help").Output()
	if err != nil {
		return fmt.Errorf("%s serve --help: %v", *bin, err)
	}
	flags, err := parseHelpGroup(string(help), "Limits")
	if err != nil {
		return err
	}

	b, err := startBackend()
	if err != nil {
		return err
	}
	defer b.Stop()
	dir, err := os.MkdirTemp("", "reliability-limits-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	proto, err := writeProto(dir)
	if err != nil {
		return err
	}
	upstream := []string{"--upstream", b.addr, "--proto", proto, "--import-path", dir}
	std, err := startServe(ctx, *bin, upstream...)
	if err != nil {
		return err
	}
	defer std.Stop()
	std.upstream = b
	lowered := upstream
	for _, f := range flags {
		if p, ok := probeOf(f.name); ok && p.lowered != "" {
			lowered = append(lowered, "--"+f.name+"="+p.lowered)
		}
	}
	short, err := startServe(ctx, *bin, lowered...)
	if err != nil {
		return err
	}
	defer short.Stop()
	short.upstream = b

	t := newTable(stdout, "flag", "default", "--help says", "breaching request", "answer (measured)", "upstream calls")
	for _, f := range flags {
		p, ok := probeOf(f.name)
		if !ok {
			t.Row("`--"+f.name+"`", f.def, f.help, "not sent: scripts/reliability has no probe for this flag yet", "", "")
			continue
		}
		target := std
		if p.lowered != "" {
			target = short
		}
		before := b.calls.Load()
		req, answer, err := p.run(ctx, target, f)
		if err != nil {
			answer = "probe failed: " + err.Error()
		}
		calls := b.calls.Load() - before
		if p.lowered != "" {
			req = fmt.Sprintf("on a serve with `--%s %s`: %s", f.name, p.lowered, req)
		}
		t.Row("`--"+f.name+"`", f.def, f.help, req, answer, strconv.FormatInt(calls, 10))
	}
	return nil
}

// probeOf is the probe of the flag name, if there is one.
func probeOf(name string) (limitProbe, bool) {
	if p, ok := limitProbes[name]; ok {
		return p, true
	}
	p, ok := capProbes[name]
	return p, ok
}

// A limitProbe breaches one limit: run sends the request to target and
// says what it sent and what came back. lowered is the flag's value on
// the serve it is measured on, or "" for serve's default.
type limitProbe struct {
	lowered string
	run     func(ctx context.Context, target *serveProc, f helpFlag) (request, answer string, err error)
}

// statusAnswer spells a response: "413 Request Entity Too Large, code 8
// RESOURCE_EXHAUSTED: message", or what the body is when it is not a
// google.rpc.Status.
func statusAnswer(res *http.Response) string {
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	s := res.Status
	var st struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(body, &st); err == nil && st.Code != nil {
		return fmt.Sprintf("%s; google.rpc.Status code %d %s: %q", s, *st.Code, codeName(*st.Code), cut(st.Message, 100))
	}
	if len(body) == 0 {
		return s + "; no body"
	}
	return fmt.Sprintf("%s; body not a google.rpc.Status (%s): %q", s, res.Header.Get("Content-Type"), cut(strings.TrimSpace(string(body)), 60))
}

// cut shortens s to n bytes, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// codeName is the name of a gRPC code.
func codeName(c int) string {
	names := []string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
		"PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
		"INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"}
	if c >= 0 && c < len(names) {
		return names[c]
	}
	return "code " + strconv.Itoa(c)
}

// do sends req and spells the answer, with how long it took when slow
// is set.
func do(req *http.Request, slow bool) (string, error) {
	start := time.Now()
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	answer := statusAnswer(res)
	if slow {
		answer += ", after " + time.Since(start).Round(10*time.Millisecond).String()
	}
	return answer, nil
}

func newRequest(ctx context.Context, method, url string, body io.Reader) *http.Request {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		panic(err) // the probes' URLs are well formed
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// parseSize reads a size as --help writes it: 4MiB, 16KiB, 100.
func parseSize(s string) (int64, error) {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseInt(n, 10, 64)
			return v * u.mult, err
		}
	}
	return strconv.ParseInt(s, 10, 64)
}

// sizeOf and intOf read a flag's default, which a probe needs to breach.
func sizeOf(f helpFlag) (int64, error) {
	n, err := parseSize(f.def)
	if err != nil {
		return 0, fmt.Errorf("--%s: default %q is not a size", f.name, f.def)
	}
	return n, nil
}

// intOf also reads a computed default by the value serve --help gives
// it on this machine: "... (here 100)".
func intOf(f helpFlag) (int, error) {
	def := f.def
	if i := strings.LastIndex(def, "(here "); i >= 0 && strings.HasSuffix(def, ")") {
		def = def[i+len("(here ") : len(def)-1]
	}
	n, err := strconv.Atoi(def)
	if err != nil {
		return 0, fmt.Errorf("--%s: default %q is not a number", f.name, f.def)
	}
	return n, nil
}
