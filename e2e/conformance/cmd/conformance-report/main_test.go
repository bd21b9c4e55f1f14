package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Case names as the runner prints them (connectconformance v1.0.7).
const (
	jsonUnary  = "Basic/HTTPVersion:2/Protocol:PROTOCOL_GRPC/Codec:CODEC_JSON/Compression:COMPRESSION_GZIP/TLS:false/unary/success"
	jsonStream = "Basic/HTTPVersion:2/Protocol:PROTOCOL_GRPC/Codec:CODEC_JSON/Compression:COMPRESSION_GZIP/TLS:false/server-stream/success"
	protoUnary = "Basic/HTTPVersion:2/Protocol:PROTOCOL_GRPC/Codec:CODEC_PROTO/Compression:COMPRESSION_GZIP/TLS:false/unary/success"
	timeout    = "Timeouts/HTTPVersion:2/Protocol:PROTOCOL_GRPC/Codec:CODEC_PROTO/Compression:COMPRESSION_GZIP/TLS:false/server-stream"
)

// output is a run with --known-failing '**' and -v: each failing case
// "failed (as expected)", each passing one "expected to fail but did not".
func output(failing, passing []string) string {
	var b strings.Builder
	b.WriteString("Running 4 tests with reference-client for server config #1 {HTTP_VERSION_2, PROTOCOL_GRPC, TLS:false}...\n")
	for _, name := range failing {
		b.WriteString("INFO: " + name + " failed (as expected):\n\tsome error\n")
	}
	for _, name := range passing {
		b.WriteString("FAILED: " + name + " was expected to fail but did not\n")
	}
	b.WriteString("\nTotal cases: 4\n0 passed, 1 failed\n")
	return b.String()
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const known = `# header
# reason: gRPC: JSON decoded as protobuf
# select: **/Protocol:PROTOCOL_GRPC/Codec:CODEC_JSON/**
`

// TestUpdate regenerates a known-failing list from two runs: the case
// that failed in both goes in, the one that failed once is left to the
// flaky list, which must have it.
func TestUpdate(t *testing.T) {
	dir := t.TempDir()
	run1 := write(t, dir, "1.out", output([]string{jsonUnary, jsonStream, timeout}, []string{protoUnary}))
	run2 := write(t, dir, "2.out", output([]string{jsonUnary, jsonStream}, []string{protoUnary, timeout}))
	list := write(t, dir, "known.txt", known)

	// The timeout case failed once: without a flaky pattern, nothing is written.
	noFlaky := write(t, dir, "flaky-none.txt", "# none\n")
	var out bytes.Buffer
	if err := run(&out, "remote", []string{run1, run2}, list, noFlaky); err == nil || !strings.Contains(out.String(), "flaky: "+timeout) {
		t.Fatalf("run = %v, output:\n%s\nwant a failure naming the flaky case", err, out.String())
	}
	if b, _ := os.ReadFile(list); string(b) != known {
		t.Errorf("the list was written despite the failure:\n%s", b)
	}

	flaky := write(t, dir, "flaky.txt", "# reason: deadlines race\nTimeouts/**\n")
	out.Reset()
	if err := run(&out, "remote", []string{run1, run2}, list, flaky); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	b, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	// Basic/** would match the passing proto case.
	want := known + "# cases: 2\nBasic/*/*/Codec:CODEC_JSON/*/*/**\n\n"
	if string(b) != want {
		t.Errorf("list:\n%s\nwant:\n%s", b, want)
	}
	// The first run: the timeout case failed, as both JSON ones; a case passed.
	if !strings.Contains(out.String(), "  gRPC           4       1              3       0                    1\n") {
		t.Errorf("no table row for gRPC in:\n%s", out.String())
	}
}
