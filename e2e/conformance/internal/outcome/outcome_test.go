package outcome

import (
	"strings"
	"testing"
)

// output is the runner's (connectconformance v1.0.7 -v), cut down: lines
// as it prints them, of a run with a known-failing list.
const output = `Computed 768 config case permutations.
Loaded 32 test suite(s), 274 test case template(s).
Computed 3820 test case permutation(s) across 16 server configuration(s).
Running 384 tests with reference-client for server config #1 {HTTP_VERSION_1, PROTOCOL_CONNECT, TLS:false}...
Running 4 tests with reference-client for server config #3 {HTTP_VERSION_1, PROTOCOL_CONNECT, TLS:true (with client certs)}...
Running 346 tests with reference-client for server config #10 {HTTP_VERSION_2, PROTOCOL_GRPC, TLS:false}...
Running 310 tests with reference-client for server config #4 {HTTP_VERSION_1, PROTOCOL_GRPC_WEB, TLS:false}...
Running 180 tests with grpc-reference-client for server config #1 {HTTP_VERSION_2, PROTOCOL_GRPC, TLS:false}...
FAILED: Basic/HTTPVersion:2/Protocol:PROTOCOL_GRPC/Codec:CODEC_JSON/Compression:COMPRESSION_GZIP/TLS:false/unary/success:
	received an unexpected error: code:CODE_INTERNAL  message:"grpc: failed to unmarshal the received message"
INFO: Connect to HTTP Code Mapping/HTTPVersion:2/Codec:CODEC_JSON/Compression:COMPRESSION_GZIP/TLS:true/unary/out-of-range failed (as expected):
	connect error JSON: json: cannot unmarshal number into Go struct field connectError.code of type string
INFO: gRPC-Web Unexpected Requests/HTTPVersion:2/TLS:true/unexpected-verb failed (as expected):
	connect error JSON: unexpected end of JSON input
FAILED: Basic/HTTPVersion:1/Protocol:PROTOCOL_GRPC_WEB/Codec:CODEC_PROTO/Compression:COMPRESSION_IDENTITY/TLS:false/unary/success was expected to fail but did not

Total cases: 1224
1221 passed, 2 failed
(Another 2 failed as expected due to being known failures/flakes.)
`

func TestRead(t *testing.T) {
	run, err := Read(strings.NewReader(output))
	if err != nil {
		t.Fatal(err)
	}
	tally := run.Tally()
	for p, want := range map[string]Tally{
		"Connect":  {Cases: 388, Passed: 387, KnownFailing: 1},
		"gRPC":     {Cases: 526, Passed: 525, Failed: 1},
		"gRPC-Web": {Cases: 310, Passed: 309, KnownFailing: 1, UnexpectedPass: 1},
	} {
		if *tally[p] != want {
			t.Errorf("%s: %+v, want %+v", p, *tally[p], want)
		}
	}
	if len(run.Summary) != 3 || run.Summary[0] != "Total cases: 1224" {
		t.Errorf("Summary = %q", run.Summary)
	}
	failing, passing := run.Failing()
	if len(failing) != 3 || len(passing) != 1 {
		t.Errorf("Failing() = %d failing, %d passing, want 3 and 1", len(failing), len(passing))
	}
	if run.NotRun != 0 {
		t.Errorf("NotRun = %d, want 0", run.NotRun)
	}
	stalled, err := Read(strings.NewReader("Total cases: 3640\n15 passed, 1589 failed\nAnother 2216 could not be run due to client timing out or exiting prematurely.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if stalled.NotRun != 2216 {
		t.Errorf("NotRun = %d, want 2216", stalled.NotRun)
	}
}

func TestSplit(t *testing.T) {
	const a, b, c = "Basic/Protocol:PROTOCOL_GRPC/a", "Basic/Protocol:PROTOCOL_GRPC/b", "Basic/Protocol:PROTOCOL_GRPC/c"
	runs := []*Run{
		{Named: map[string]Kind{a: KnownFailing, b: KnownFailing, c: UnexpectedPass}},
		{Named: map[string]Kind{a: KnownFailing, b: UnexpectedPass, c: UnexpectedPass}},
	}
	failing, flaky, passing := Split(runs)
	if len(failing) != 1 || failing[0] != a || len(flaky) != 1 || flaky[0] != b || len(passing) != 1 || passing[0] != c {
		t.Errorf("Split = %q, %q, %q; want [a], [b], [c]", failing, flaky, passing)
	}
}

func TestReadErrors(t *testing.T) {
	if _, err := Read(strings.NewReader("Running 4 tests with reference-client for server config #1 {HTTP_VERSION_1, PROTOCOL_CONNECT, TLS:false}...\n")); err == nil {
		t.Error("an output without a summary: no error")
	}
	if _, err := Read(strings.NewReader("FAILED: Mystery/unary/success:\nTotal cases: 1\n")); err == nil {
		t.Error("a case of no protocol: no error")
	}
}

func TestProtocol(t *testing.T) {
	for name, want := range map[string]string{
		"Basic/HTTPVersion:2/Protocol:PROTOCOL_GRPC_WEB/Codec:CODEC_PROTO/Compression:COMPRESSION_GZIP/TLS:false/unary/success": "gRPC-Web",
		"gRPC-Web Unexpected Requests/HTTPVersion:2/TLS:true/unexpected-verb":                                                   "gRPC-Web",
		"gRPC Unexpected Requests/HTTPVersion:2/TLS:false/unexpected-codec":                                                     "gRPC",
		"Connect with GET/HTTPVersion:1/Codec:CODEC_PROTO/TLS:false/success":                                                    "Connect",
		"Mystery/unary/success": "",
	} {
		if got := Protocol(name); got != want {
			t.Errorf("Protocol(%q) = %q, want %q", name, got, want)
		}
	}
}
