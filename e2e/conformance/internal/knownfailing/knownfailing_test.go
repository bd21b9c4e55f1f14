package knownfailing

import (
	"bytes"
	"strings"
	"testing"

	"github.com/protorest/protorest/e2e/conformance/internal/pattern"
)

const list = `# The header: kept as it is.

# reason: gRPC: application/grpc+json is decoded as protobuf
# select: **/Protocol:PROTOCOL_GRPC/Codec:CODEC_JSON/**
# cases: 99
Stale/Pattern/**

# reason: Connect: not served
# select: **/Protocol:PROTOCOL_CONNECT/**
# select: Connect to HTTP Code Mapping/**

# reason: gRPC-Web: not served
# select: **/Protocol:PROTOCOL_GRPC_WEB/**
`

const (
	grpcJSON1   = "Basic/HTTPVersion:2/Protocol:PROTOCOL_GRPC/Codec:CODEC_JSON/Compression:COMPRESSION_GZIP/TLS:false/unary/success"
	grpcJSON2   = "Errors/HTTPVersion:2/Protocol:PROTOCOL_GRPC/Codec:CODEC_JSON/Compression:COMPRESSION_IDENTITY/TLS:true/unary/aborted"
	grpcProto   = "Basic/HTTPVersion:2/Protocol:PROTOCOL_GRPC/Codec:CODEC_PROTO/Compression:COMPRESSION_GZIP/TLS:false/unary/success"
	connect1    = "Basic/HTTPVersion:1/Protocol:PROTOCOL_CONNECT/Codec:CODEC_JSON/Compression:COMPRESSION_GZIP/TLS:false/unary/success"
	connectPass = "Basic/HTTPVersion:1/Protocol:PROTOCOL_CONNECT/Codec:CODEC_JSON/Compression:COMPRESSION_IDENTITY/TLS:false/unary/success"
	mapping     = "Connect to HTTP Code Mapping/HTTPVersion:2/Codec:CODEC_JSON/Compression:COMPRESSION_GZIP/TLS:true/unary/out-of-range"
	timeout     = "Timeouts/HTTPVersion:2/Protocol:PROTOCOL_GRPC/Codec:CODEC_PROTO/Compression:COMPRESSION_GZIP/TLS:true/server-stream"
)

func TestUpdate(t *testing.T) {
	f, err := Parse(strings.NewReader(list))
	if err != nil {
		t.Fatal(err)
	}
	failing := []string{grpcJSON1, grpcJSON2, connect1, mapping, timeout}
	passing := []string{grpcProto, connectPass}
	u := f.Update(failing, passing)
	if len(u.Unexplained) != 1 || u.Unexplained[0] != timeout {
		t.Errorf("Unexplained = %q, want the timeout case", u.Unexplained)
	}
	if len(u.Dropped) != 1 || u.Dropped[0] != "gRPC-Web: not served" {
		t.Errorf("Dropped = %q, want the gRPC-Web block", u.Dropped)
	}
	var all []string
	for _, b := range f.Blocks {
		all = append(all, b.Patterns...)
	}
	for _, name := range []string{grpcJSON1, grpcJSON2, connect1, mapping} {
		if !pattern.MatchAny(all, name) {
			t.Errorf("%s: matched by no pattern of %q", name, all)
		}
	}
	for _, name := range append(passing, timeout) {
		if pattern.MatchAny(all, name) {
			t.Errorf("%s: matched by %q", name, all)
		}
	}

	var out bytes.Buffer
	if err := f.Write(&out, u.Cases); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# The header: kept as it is.\n\n# reason: gRPC: application/grpc+json is decoded as protobuf\n# select: **/Protocol:PROTOCOL_GRPC/Codec:CODEC_JSON/**\n# cases: 2\n",
		"# reason: Connect: not served\n# select: **/Protocol:PROTOCOL_CONNECT/**\n# select: Connect to HTTP Code Mapping/**\n# cases: 2\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("written list lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "Stale/Pattern") || strings.Contains(out.String(), "gRPC-Web") {
		t.Errorf("written list keeps a stale pattern or a dropped block:\n%s", out.String())
	}
	again, err := Parse(&out)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Blocks) != 2 || len(again.Blocks[0].Patterns) == 0 {
		t.Errorf("the written list parses back as %d blocks", len(again.Blocks))
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{
		"Basic/**\n",
		"# select: **\n",
	} {
		if _, err := Parse(strings.NewReader(bad)); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}
