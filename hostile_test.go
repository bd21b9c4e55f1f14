package protorest_test

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
)

// hostileShape is one shape of the hostile-input catalogue
// (shared/HARDENING.md §3), on conf.v1.Probes's routes: the request, and
// what the gateway must answer. Each runs in-process and remote.
type hostileShape struct {
	id     string // the catalogue's id, then the variant
	method string
	target string
	header []string // name, value pairs
	body   string
	raw    string // the request as bytes ("{host}" for the server's), for what net/http's client cannot send
	// uncompressed sends the request to the gateway without
	// WithCompression (protorest serve's default), not the one with it
	uncompressed bool

	status    int
	code      codes.Code // the google.rpc.Status code of an error body
	plain     string     // why an error body is not a google.rpc.Status: net/http answered, not the gateway
	nc        bool       // the catalogue's NC: no method is called
	mem       uint64     // the catalogue's M: the most the request may allocate, in bytes, all goroutines
	memRemote uint64     // the same remote, where the backend's own decoding of the message counts too (0: mem)
	closes    bool       // the catalogue's C: the server closes the connection
	only      string     // "in-process" when the shape means nothing remote, and why in differs

	check func(t *testing.T, e *hostileEnv, r hostileResp) // more to check
	run   func(t *testing.T, e *hostileEnv) hostileResp    // a shape that is not one raw exchange
	diff  string                                           // where protorest's documented behaviour differs from the catalogue, and why
	seen  func(t *testing.T, e *hostileEnv, c hostileCall) // what the method got, for a shape that reaches it
}

// Shapes left out, covered by branches under way (the lead adds them
// after merging): S3 (a stalled body: 408) and T2 (a body at 1 byte/s:
// 408) by idle-timeouts; R5 (stream idle: closed) by idle-timeouts; S6
// (a 5 MiB reply: 500 "response too large") by response-bound.
//
// The shapes are built when TestHostile runs, not at package init: their
// bodies (tens of MiB) would otherwise stay live through every test of the
// package, and move the heap the memory tests measure.
func hostileShapes() []hostileShape {
	return []hostileShape{
		// Path and escaping.
		{id: "P1", method: "GET", target: "/v1/probes/abc?name=x", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "P2/dotted", method: "GET", target: "/v1/nested/a/1?inner.s=b", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "P3/dots", method: "GET", target: "/v1/shelves/../books/2", status: 200, seen: name("shelves/../books/2")},
		{id: "P3/escaped", method: "GET", target: "/v1/shelves/%2e%2e/books/2", status: 200, seen: name("shelves/../books/2")},
		{id: "P4/one segment", method: "GET", target: "/v1/probes/a%2Fb", status: 200, seen: name("a/b")},
		{id: "P4/multi", method: "GET", target: "/v1/shelves/a%2Fb/books/2", status: 200, seen: method("GetBook", "shelves/a%2Fb/books/2")},
		{id: "P5/%zz", method: "GET", target: "/v1/probes/%zz", status: 400, plain: badTarget, nc: true},
		{id: "P5/trailing %", method: "GET", target: "/v1/probes/a%", status: 400, plain: badTarget, nc: true},
		{id: "P5/%4", method: "GET", target: "/v1/probes/%4", status: 400, plain: badTarget, nc: true},
		{id: "P6", method: "GET", target: "/v1/probes/%FF%FE", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "P7", method: "GET", target: "/v1/probes/a%00b", status: 200, seen: name("a\x00b")},
		{id: "P8", method: "GET", target: "//v1//probes/abc", status: 404, code: codes.NotFound, nc: true},
		{id: "P9", raw: "GET /v1/probes/abc#frag HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n", status: 200, seen: name("abc#frag")},
		{id: "P10/17 KiB", method: "GET", target: "/v1/probes/" + strings.Repeat("a", 17<<10), status: 414, code: codes.ResourceExhausted, nc: true},
		{id: "P10/70 KiB", method: "GET", target: "/v1/probes/" + strings.Repeat("a", 70<<10), status: 431, plain: "net/http's MaxHeaderBytes", nc: true, closes: true},
		{id: "P11", method: "GET", target: "/v1" + strings.Repeat("/a", 8000), status: 404, code: codes.NotFound, nc: true,
			check: within(time.Second)},
		{id: "P12/lower-case get", method: "get", target: "/v1/probes/abc", status: 405, code: codes.Unimplemented, nc: true, check: allow},
		{id: "P12/CONNECT", raw: "CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\nConnection: close\r\n\r\n", status: 404, code: codes.NotFound, nc: true},
		{id: "P12/OPTIONS *", raw: "OPTIONS * HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n", status: 200, nc: true,
			diff: "net/http answers OPTIONS * itself (200, empty), before any handler"},
		{id: "P13", method: "POST", target: "/v1/probes", header: []string{"Content-Type", "application/x-www-form-urlencoded", "X-HTTP-Method-Override", "DELETE"},
			body: `{"name":"n"}`, status: 200, seen: method("CreateProbe", "n")},
		{id: "P14", raw: "GET http://evil.example/v1/probes/abc HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n", status: 200,
			seen: func(t *testing.T, _ *hostileEnv, c hostileCall) {
				if c.name != "abc" || !slices.Equal(c.md.Get("x-forwarded-host"), []string{"evil.example"}) {
					t.Errorf("name %q, x-forwarded-host %q", c.name, c.md.Get("x-forwarded-host"))
				}
			}},

		// Query.
		{id: "Q1", method: "GET", target: "/v1/probes?foo=1", status: 400, code: codes.InvalidArgument, nc: true, check: bodyHas("foo")},
		{id: "Q2", method: "GET", target: "/v1/probes?i32=1&i32=2", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "Q3/value", method: "GET", target: "/v1/probes?name=%zz", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "Q3/name", method: "GET", target: "/v1/probes?%=1", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "Q4/1,001", method: "GET", target: "/v1/probes?" + strings.Repeat("t=&", 1001), status: 400, code: codes.InvalidArgument, nc: true, mem: 1 << 20},
		{id: "Q4/10,001", method: "GET", target: "/v1/probes?" + strings.Repeat("t&", 10001), status: 414, code: codes.ResourceExhausted, nc: true, mem: 1 << 20,
			diff: "the 16 KiB target limit answers first (414), before the parameters are counted"},
		{id: "Q5/overflow", method: "GET", target: "/v1/probes?i32=4294967296", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "Q5/hex", method: "GET", target: "/v1/probes?i32=0x10", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "Q5/empty", method: "GET", target: "/v1/probes?i32=", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "Q6/year 10000", method: "GET", target: "/v1/probes?ts=10000-01-01T00:00:00Z", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "Q6/duration", method: "GET", target: "/v1/probes?dur=315576000001s", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "Q6/base64", method: "GET", target: "/v1/probes?blob=@@@", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "Q7", method: "GET", target: "/v1/probes?" + strings.Repeat("a.", 500) + "a=1", status: 400, code: codes.InvalidArgument, nc: true, check: within(time.Second)},
		{id: "Q8/repeated message", method: "GET", target: "/v1/probes?items.s=x", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "Q8/brackets", method: "GET", target: "/v1/probes?m[k]=v", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "Q9", method: "GET", target: "/v1/probes?name=%C0%AF", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "Q10", method: "POST", target: "/v1/probes", header: []string{"Content-Type", "application/x-www-form-urlencoded"}, body: "name=3",
			status: 400, code: codes.InvalidArgument, nc: true},

		// Headers and metadata, checked against what the method got.
		{id: "H1", method: "GET", target: "/v1/probes/abc", header: []string{"Grpc-Metadata-Grpcgateway-Authorization", "Bearer spoof"}, status: 200,
			seen: absent("grpcgateway-authorization", "authorization")},
		{id: "H2", method: "GET", target: "/v1/probes/abc", header: []string{"Grpc-Metadata-X-Forwarded-For", "6.6.6.6", "Grpc-Metadata-X-Forwarded-Host", "evil"}, status: 200,
			seen: func(t *testing.T, e *hostileEnv, c hostileCall) {
				if !slices.Equal(c.md.Get("x-forwarded-for"), []string{"127.0.0.1"}) || !slices.Equal(c.md.Get("x-forwarded-host"), []string{e.addr}) {
					t.Errorf("x-forwarded-for %q, x-forwarded-host %q", c.md.Get("x-forwarded-for"), c.md.Get("x-forwarded-host"))
				}
			}},
		{id: "H2/proxy keys", method: "GET", target: "/v1/probes/abc", header: []string{"Grpc-Metadata-X-Real-Ip", "6.6.6.6", "Grpc-Metadata-Forwarded", "for=6.6.6.6",
			"Grpc-Metadata-X-Envoy-External-Address", "6.6.6.6", "Grpc-Metadata-X-Envoy-Original-Path", "/admin"}, status: 200,
			seen: absent("x-real-ip", "forwarded", "x-envoy-external-address", "x-envoy-original-path")},
		{id: "H19/traceparent upper case", method: "GET", target: "/v1/probes/abc", header: []string{"Traceparent", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01", "Tracestate", "a=1"}, status: 200,
			seen: absent("traceparent", "tracestate")},
		{id: "H19/traceparent zero id", method: "GET", target: "/v1/probes/abc", header: []string{"Traceparent", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"}, status: 200,
			seen: absent("traceparent")},
		{id: "H19/traceparent twice", method: "GET", target: "/v1/probes/abc", header: []string{"Traceparent", validTraceparent, "Traceparent", validTraceparent}, status: 200,
			seen: absent("traceparent")},
		{id: "H19/tracestate invalid", method: "GET", target: "/v1/probes/abc", header: []string{"Traceparent", validTraceparent, "Tracestate", "A=1,b=2"}, status: 200,
			seen: func(t *testing.T, e *hostileEnv, c hostileCall) {
				metadataIs("traceparent", validTraceparent)(t, e, c)
				absent("tracestate")(t, e, c)
			}},
		{id: "H19/tracestate 33 members", method: "GET", target: "/v1/probes/abc", header: []string{"Traceparent", validTraceparent, "Tracestate", tracestateMembers(33)}, status: 200,
			seen: absent("tracestate")},
		{id: "H19/valid", method: "GET", target: "/v1/probes/abc", header: []string{"Traceparent", validTraceparent, "Tracestate", tracestateMembers(31), "Tracestate", "t@sys=x y"}, status: 200,
			seen: func(t *testing.T, e *hostileEnv, c hostileCall) {
				metadataIs("traceparent", validTraceparent)(t, e, c)
				metadataIs("tracestate", tracestateMembers(31)+",t@sys=x y")(t, e, c)
			}},
		{id: "H3", method: "GET", target: "/v1/probes/abc", header: []string{"X-Forwarded-For", "1.1.1.1", "X-Forwarded-For", "2.2.2.2"}, status: 200,
			seen: metadataIs("x-forwarded-for", "1.1.1.1, 2.2.2.2, 127.0.0.1")},
		{id: "H4", method: "GET", target: "/v1/probes/abc", header: []string{"Authorization", "Bearer \xff\xfe"}, status: 200,
			seen: absent("authorization", "grpcgateway-authorization")},
		{id: "H5", method: "GET", target: "/v1/probes/abc", header: []string{"Grpc-Metadata-Grpc-Status", "0", "Grpc-Metadata-Te", "x", "Grpc-Metadata-Content-Type", "evil"}, status: 200,
			seen: func(t *testing.T, _ *hostileEnv, c hostileCall) {
				for k, vs := range c.md {
					if slices.ContainsFunc(vs, func(v string) bool { return v == "evil" || v == "x" }) || k == "grpc-status" {
						t.Errorf("metadata %s = %q", k, vs)
					}
				}
			}},
		{id: "H6", method: "GET", target: "/v1/probes/abc", header: []string{"Grpc-Metadata-A!b", "v", "Grpc-Metadata-", "v"}, status: 200,
			seen: func(t *testing.T, _ *hostileEnv, c hostileCall) {
				for k := range c.md {
					if strings.ContainsAny(k, "!") || k == "" {
						t.Errorf("metadata %q", k)
					}
				}
			}},
		{id: "H7", method: "GET", target: "/v1/probes/abc", header: []string{"Grpc-Metadata-X-Bin", "@@@"}, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "H8/clamped", method: "GET", target: "/v1/probes/abc", header: []string{"Grpc-Timeout", "99999999H"}, status: 200,
			seen: func(t *testing.T, _ *hostileEnv, c hostileCall) {
				if c.deadline <= 4*time.Minute || c.deadline > 5*time.Minute {
					t.Errorf("deadline %v away, want 5 minutes", c.deadline)
				}
			}},
		{id: "H8/1X", method: "GET", target: "/v1/probes/abc", header: []string{"Grpc-Timeout", "1X"}, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "H8/-1S", method: "GET", target: "/v1/probes/abc", header: []string{"Grpc-Timeout", "-1S"}, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "H9", method: "GET", target: "/v1/probes/abc", header: []string{"Grpc-Timeout", "1n"}, status: 504, code: codes.DeadlineExceeded, check: within(time.Second)},
		{id: "H10/101 headers", method: "GET", target: "/v1/probes/abc", header: headerLines(100), status: 431, code: codes.ResourceExhausted, nc: true},
		{id: "H10/cookie", method: "GET", target: "/v1/probes/abc", header: []string{"Cookie", strings.Repeat("c", 9<<10)}, status: 431, code: codes.ResourceExhausted, nc: true},
		{id: "H11", method: "GET", target: "/v1/probes/abc", header: []string{"X-Big", strings.Repeat("b", 70<<10)}, status: 431, plain: "net/http's MaxHeaderBytes", nc: true, closes: true},
		{id: "H12", method: "GET", target: "/v1/probes/abc", header: []string{"Connection", "X-Int", "X-Int", "i", "Keep-Alive", "timeout=5", "Proxy-Foo", "p"}, status: 200,
			seen: absent("x-int", "grpcgateway-x-int", "keep-alive", "grpcgateway-keep-alive", "proxy-foo", "grpcgateway-proxy-foo")},
		{id: "H13", run: smuggle, status: 200},
		{id: "H14/xchunked", raw: "POST /v1/probes HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n", status: 501, plain: "net/http", nc: true},
		{id: "H14/chunked twice", raw: "POST /v1/probes HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n", status: 501, plain: "net/http", nc: true,
			diff: "net/http answers 501 Unsupported transfer encoding (the catalogue's probe said 400): rejected either way"},
		{id: "H14/two lengths", raw: "POST /v1/probes HTTP/1.1\r\nHost: {host}\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", status: 400, plain: "net/http", nc: true},
		{id: "H14/+1", raw: "POST /v1/probes HTTP/1.1\r\nHost: {host}\r\nContent-Length: +2\r\n\r\n{}", status: 400, plain: "net/http", nc: true},
		{id: "H15", method: "GET", target: "/v1/probes/abc", header: []string{"Upgrade", "h2c", "Connection", "Upgrade, HTTP2-Settings", "HTTP2-Settings", "AAMAAABkAARAAAAAAAIAAAAA"}, status: 200},
		{id: "H16/two Host", raw: "GET /v1/probes/abc HTTP/1.1\r\nHost: {host}\r\nHost: evil\r\n\r\n", status: 400, plain: "net/http", nc: true},
		{id: "H16/no Host", raw: "GET /v1/probes/abc HTTP/1.1\r\n\r\n", status: 400, plain: "net/http", nc: true},
		{id: "H16/CR", raw: "GET /v1/probes/abc HTTP/1.1\r\nHost: {host}\r\nX-A: a\rb\r\n\r\n", status: 400, plain: "net/http", nc: true},
		{id: "H16/NUL", raw: "GET /v1/probes/abc HTTP/1.1\r\nHost: {host}\r\nX-A: a\x00b\r\n\r\n", status: 400, plain: "net/http", nc: true},
		{id: "H17", method: "GET", target: "/v1/probes/abc", header: []string{"Accept", strings.Repeat("x/y;q=zz, */*;q=-1, ", 250)}, status: 200, mem: 1 << 20,
			diff: "5 KiB, not 10: Accept is forwarded as grpcgateway-accept, and 10 KiB of it is over the 8 KiB metadata limit (431, as H10)",
			check: func(t *testing.T, _ *hostileEnv, r hostileResp) {
				if ct := r.header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
			}},
		{id: "H18/gzip bomb", method: "POST", target: "/v1/probes", header: []string{"Content-Encoding", "gzip"}, body: gzipBomb(10 << 20),
			status: 413, code: codes.ResourceExhausted, nc: true, mem: 5 * (4 << 20)}, // 5× the 4 MiB limit, whatever the body inflates to
		{id: "H18/br", method: "POST", target: "/v1/probes", header: []string{"Content-Encoding", "br"}, body: `{}`, status: 415, code: codes.Unimplemented, nc: true},
		// Request codings are decoded without WithCompression too (protorest
		// serve's default): grpc-gateway parses the encoded bytes as JSON.
		{id: "H18/gzip", uncompressed: true, method: "POST", target: "/v1/probes", header: []string{"Content-Encoding", "gzip"}, body: encode("gzip", `{"name":"n"}`),
			status: 200, seen: method("CreateProbe", "n")},
		{id: "H18/zstd", uncompressed: true, method: "POST", target: "/v1/probes", header: []string{"Content-Encoding", "zstd"}, body: encode("zstd", `{"name":"n"}`),
			status: 200, seen: method("CreateProbe", "n")},
		{id: "H18/x-gzip, identity", uncompressed: true, method: "POST", target: "/v1/probes", header: []string{"Content-Encoding", "X-Gzip, identity"}, body: encode("gzip", `{"name":"n"}`),
			status: 200, seen: method("CreateProbe", "n")},
		{id: "H18/gzip bomb, uncompressed", uncompressed: true, method: "POST", target: "/v1/probes", header: []string{"Content-Encoding", "gzip"}, body: gzipBomb(10 << 20),
			status: 413, code: codes.ResourceExhausted, nc: true, mem: 5 * (4 << 20)},
		// The gzip bomb's bound, and the window: zstd decodes with a window
		// of up to 8 MiB, which RFC 9659 §3 has decoders support, and
		// allocates it whole (21 to 25.6 MB measured).
		{id: "H18/zstd bomb", uncompressed: true, method: "POST", target: "/v1/probes", header: []string{"Content-Encoding", "zstd"}, body: zstdBomb(10 << 20),
			status: 413, code: codes.ResourceExhausted, nc: true, mem: 5*(4<<20) + 8<<20},
		{id: "H18/zstd window 128 MiB", uncompressed: true, method: "POST", target: "/v1/probes", header: []string{"Content-Encoding", "zstd"}, body: zstdWindow(27),
			status: 400, code: codes.InvalidArgument, nc: true, mem: 2 << 20, check: bodyHas("not valid zstd")},
		{id: "H18/br, uncompressed", uncompressed: true, method: "POST", target: "/v1/probes", header: []string{"Content-Encoding", "br"}, body: `{}`,
			status: 415, code: codes.Unimplemented, nc: true, check: acceptEncoding},
		{id: "H18/deflate", uncompressed: true, method: "POST", target: "/v1/probes", header: []string{"Content-Encoding", "deflate"}, body: `{}`,
			status: 415, code: codes.Unimplemented, nc: true, check: acceptEncoding},
		{id: "H18/gzip, zstd", uncompressed: true, method: "POST", target: "/v1/probes", header: []string{"Content-Encoding", "gzip, zstd"}, body: encode("gzip", encode("zstd", `{}`)),
			status: 415, code: codes.Unimplemented, nc: true, check: acceptEncoding,
			diff: "one coding per request (RFC 9110 allows a list): no client sends two, and each would multiply the work a small body may ask for"},
		{id: "H18/not gzip", uncompressed: true, method: "POST", target: "/v1/probes", header: []string{"Content-Encoding", "gzip"}, body: `{"name":"n"}`,
			status: 400, code: codes.InvalidArgument, nc: true, check: bodyHas("not valid gzip")},
		{id: "H18/corrupt gzip", uncompressed: true, method: "POST", target: "/v1/probes", header: []string{"Content-Encoding", "gzip"}, body: encode("gzip", `{}`)[:10] + "ÿÿÿÿ",
			status: 400, code: codes.InvalidArgument, nc: true, check: bodyHas("not valid gzip")},
		{id: "H18/truncated zstd", uncompressed: true, method: "POST", target: "/v1/probes", header: []string{"Content-Encoding", "zstd"}, body: encode("zstd", `{"name":"n"}`)[:12],
			status: 400, code: codes.InvalidArgument, nc: true, check: bodyHas("not valid zstd")},
		{id: "H18/br on a rule without body", uncompressed: true, method: "GET", target: "/v1/probes/abc", header: []string{"Content-Encoding", "br"}, body: "xyz",
			status: 200, seen: name("abc"), diff: "a body the rule does not take is dropped unread by its coding"},
		{id: "H18/gzip stream bomb", uncompressed: true, method: "POST", target: "/v1/bulk", header: []string{"Content-Encoding", "gzip"}, body: gzipBomb(10 << 20),
			status: 413, code: codes.ResourceExhausted, mem: 6 * (4 << 20)},

		// JSON bodies.
		{id: "J1/{", method: "POST", target: "/v1/probes", body: `{`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J1/empty key", method: "POST", target: "/v1/probes", body: `{"":}`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J1/no value", method: "POST", target: "/v1/probes", body: `{"attrs":{"a":}}`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J2/two values", method: "POST", target: "/v1/probes", body: `{} {}`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J2/trailing", method: "POST", target: "/v1/probes", body: `{}x`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J3", method: "POST", target: "/v1/probes", body: `{"val":` + strings.Repeat("[", 1<<20), status: 400, code: codes.InvalidArgument, nc: true,
			mem: 8 << 20, check: within(time.Second)},
		{id: "J4", method: "POST", target: "/v1/probes", body: `{"val":` + strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 201), status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J5", method: "POST", target: "/v1/probes", body: `{"name":"a","name":"b"}`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J6/int64", method: "POST", target: "/v1/probes", body: `{"id":"9223372036854775808"}`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J6/int32", method: "POST", target: "/v1/probes", body: `{"i32":2147483648}`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J6/fraction", method: "POST", target: "/v1/probes", body: `{"i32":1.5}`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J7/1e309", method: "POST", target: "/v1/probes", body: `{"dbl":1e309}`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J7/NaN", method: "POST", target: "/v1/probes", body: `{"dbl":NaN}`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J7/1 MiB of digits", method: "POST", target: "/v1/probes", body: `{"dbl":` + strings.Repeat("9", 1<<20) + `}`, status: 400, code: codes.InvalidArgument, nc: true,
			check: shortBody(512)},
		{id: "J8/lone surrogate", method: "POST", target: "/v1/probes", body: `{"name":"\ud800"}`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J8/raw \\xFF", method: "POST", target: "/v1/probes", body: "{\"name\":\"\xff\"}", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J8/BOM", method: "POST", target: "/v1/probes", body: "\ufeff{}", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J9/month 13", method: "POST", target: "/v1/probes", body: `{"ts":"2017-13-01T00:00:00Z"}`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J9/year 10000", method: "POST", target: "/v1/probes", body: `{"ts":"10000-01-01T00:00:00Z"}`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J9/10-digit fraction", method: "POST", target: "/v1/probes", body: `{"dur":"1.0000000001s"}`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J10", method: "POST", target: "/v1/probes", body: `{"mask":"display_name"}`, status: 400, code: codes.InvalidArgument, nc: true},
		{id: "J12", method: "POST", target: "/v1/probes", body: `{"name":"n","nope":1}`, status: 200, seen: method("CreateProbe", "n")},
		{id: "J13/unknown name", method: "POST", target: "/v1/probes", body: `{"name":"n","colors":["NOPE"]}`, status: 200, seen: method("CreateProbe", "n")},
		{id: "J13/number as string", method: "POST", target: "/v1/probes", body: `{"name":"n","colors":["1"]}`, status: 200, seen: method("CreateProbe", "n"),
			diff: `"1" is an enum name that does not exist, which protojson with DiscardUnknown ignores, as protorest's decoder does (docs/reference.md#content-types)`},
		{id: "J14", method: "POST", target: "/v1/probes", body: `{"name":"n","blob":"` + strings.Repeat("QUJD", 3<<18) + `"}`, status: 200, mem: 5 * (3 << 20), memRemote: 8 * (3 << 20),
			seen: func(t *testing.T, _ *hostileEnv, c hostileCall) {
				if c.blob != 9<<18 {
					t.Errorf("%d bytes of blob", c.blob)
				}
			}},
		{id: "J15/ListValue", method: "POST", target: "/v1/probes", body: `{"val":[` + strings.Repeat("0,", 1<<18) + `0]}`, status: 200, mem: 81 * (1 << 19), memRemote: 120 * (1 << 19)},
		{id: "J15/Struct", method: "POST", target: "/v1/probes", body: manyKeys(1 << 16), status: 200, mem: 26 * (1 << 20), memRemote: 40 << 20},
		{id: "J16", method: "POST", target: "/v1/probes", body: `{"name":"n","inner":null}`, status: 200,
			seen: func(t *testing.T, _ *hostileEnv, c hostileCall) {
				if c.inner {
					t.Error("inner is set")
				}
			}},

		// Binary bodies: the backend would answer INTERNAL to what it cannot
		// parse, so the gateway checks before it forwards.
		{id: "B1/varint", method: "POST", target: "/v1/probes", header: protoBody, body: "\x10\xff", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "B1/length", method: "POST", target: "/v1/probes", header: protoBody, body: "\x0a\x05ab", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "B2", method: "POST", target: "/v1/probes", header: protoBody, body: "\x0a\xff\xff\xff\xff\x07ab", status: 400, code: codes.InvalidArgument, nc: true, mem: 1 << 20},
		{id: "B3", method: "POST", target: "/v1/probes", header: protoBody, body: deepValue(10001), status: 400, code: codes.InvalidArgument, nc: true},
		{id: "B4", method: "POST", target: "/v1/probes", header: protoBody, body: "\x0a\x02\xff\xfe", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "B5", method: "POST", target: "/v1/probes", header: protoBody, body: "\x0a\x01n" + unknownFields, status: 200,
			seen: func(t *testing.T, _ *hostileEnv, c hostileCall) {
				if got := c.unknown; got != unknownFields {
					t.Errorf("unknown fields %q, want %q", got, unknownFields)
				}
			}},
		{id: "B6", method: "POST", target: "/v1/probes", header: protoBody, body: "\x0a\x01n" + string(protowire.AppendBytes(protowire.AppendTag(nil, 8, protowire.BytesType), make([]byte, 5<<20))),
			status: 413, code: codes.ResourceExhausted, nc: true},

		// Content types.
		{id: "C1", method: "POST", target: "/v1/probes", body: `{"name":"n"}`, status: 200, seen: method("CreateProbe", "n")},
		{id: "C2", method: "POST", target: "/v1/probes", header: []string{"Content-Type", "application/json; charset=utf-16"}, body: "\xff\xfe{\x00}\x00", status: 400, code: codes.InvalidArgument, nc: true},
		{id: "C3", method: "POST", target: "/v1/probes", header: []string{"Content-Type", "multipart/form-data; boundary=x"},
			body: "--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n" + strings.Repeat("a", 3<<20) + "\r\n--x--\r\n", status: 400, code: codes.InvalidArgument, nc: true, mem: 12 << 20},
		{id: "C4", method: "POST", target: "/v1/probes", header: []string{"Content-Type", ";;;="}, body: `{"name":"n"}`, status: 200, seen: method("CreateProbe", "n")},
		{id: "C5", method: "POST", target: "/v1/probes", header: []string{"Content-Type", "application/grpc"}, body: "\x00\x00\x00\x00\x00", status: 400, code: codes.InvalidArgument, nc: true,
			diff: "an unknown Content-Type is read as JSON (docs/reference.md#content-types), so a gRPC frame is bad JSON: 400, no call; protorest serve sends application/grpc to its upstream as it is"},
		{id: "C6/x-protobuf", method: "GET", target: "/v1/probes/abc", header: []string{"Accept", "application/x-protobuf"}, status: 200, check: contentType("application/x-protobuf")},
		{id: "C6/no gRPC headers", method: "GET", target: "/v1/probes/abc", status: 200,
			check: func(t *testing.T, _ *hostileEnv, r hostileResp) {
				for k, v := range r.header {
					if lk := strings.ToLower(k); lk == "grpc-metadata-content-type" || strings.HasPrefix(lk, "grpc-metadata-grpc-") {
						t.Errorf("%s: %q: the backend's transport headers reach the client", k, v)
					}
				}
			}},
		{id: "C6/xml", method: "GET", target: "/v1/probes/abc", header: []string{"Accept", "application/xml"}, status: 200, check: contentType("application/json")},

		// Sizes.
		{id: "S1", raw: "POST /v1/probes HTTP/1.1\r\nHost: {host}\r\nContent-Length: 4194305\r\n\r\n{", status: 413, code: codes.ResourceExhausted, nc: true},
		{id: "S2", method: "POST", target: "/v1/probes", header: []string{"Transfer-Encoding", "chunked"}, body: chunked(`{"name":"`+strings.Repeat("a", 5<<20)+`"}`, 64<<10),
			status: 413, code: codes.ResourceExhausted, nc: true, mem: 5 * (4 << 20)},
		{id: "S4", raw: "POST /v1/probes HTTP/1.1\r\nHost: {host}\r\nContent-Length: 99999999999999999999\r\n\r\n{}", status: 400, plain: "net/http", nc: true},
		{id: "S5", run: expectContinue, status: 413, code: codes.ResourceExhausted, nc: true},
		{id: "S7/extension", method: "POST", target: "/v1/probes", header: []string{"Transfer-Encoding", "chunked"}, body: "2;" + strings.Repeat("e", 5<<10) + "\r\n{}\r\n0\r\n\r\n",
			status: 400, code: codes.InvalidArgument, nc: true},
		{id: "S7/size overflow", method: "POST", target: "/v1/probes", header: []string{"Transfer-Encoding", "chunked"}, body: "fffffffffffffffff\r\n{}\r\n0\r\n\r\n",
			status: 400, code: codes.InvalidArgument, nc: true},
	}
}

// badTarget: net/http answers a request target that is not a valid URL
// itself, in plain text, before any handler.
const badTarget = "net/http: not a valid URL"

var protoBody = []string{"Content-Type", "application/proto"}

// unknownFields is field 1000 (a varint) and field 1001 (a group holding
// a varint), which conf.v1.Probe does not have.
var unknownFields = string(protowire.AppendVarint(protowire.AppendTag(nil, 1000, protowire.VarintType), 7)) +
	string(protowire.AppendTag(nil, 1001, protowire.StartGroupType)) +
	string(protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 1)) +
	string(protowire.AppendTag(nil, 1001, protowire.EndGroupType))

// TestHostile runs every shape of the catalogue against both gateways and
// logs one summary line for scripts/reliability.
func TestHostile(t *testing.T) {
	envs := []*hostileEnv{newHostileEnv(t, "in-process"), newHostileEnv(t, "remote")}
	var sum hostileSummary
	shapes := slices.Concat(hostileShapes(), hostileStreamShapes())
	for _, s := range shapes {
		t.Run(s.id, func(t *testing.T) {
			for _, e := range envs {
				if s.only != "" && e.mode != "in-process" {
					continue
				}
				t.Run(e.mode, func(t *testing.T) { sum.add(e.mode, s, runShape(t, e, s)) })
			}
		})
	}
	for _, e := range envs {
		sum.panics += e.panics.Load()
	}
	t.Log(sum.String(len(shapes)))
	if sum.panics != 0 || sum.ncCalls != 0 {
		t.Errorf("%d panics, %d calls where none was allowed", sum.panics, sum.ncCalls)
	}
}

// runShape sends s to e and checks the answer; it returns the status and
// the calls the shape caused where it must cause none.
func runShape(t *testing.T, e *hostileEnv, s hostileShape) hostileResult {
	before := e.calls()
	e.backend.streams.Store(newStreamer())
	e.backend.mu.Lock()
	e.backend.last = hostileCall{}
	e.backend.mu.Unlock()
	addr := e.addr
	if s.uncompressed {
		addr = e.plainAddr
	}
	var req []byte
	if s.raw != "" {
		req = []byte(strings.ReplaceAll(s.raw, "{host}", addr))
	} else if s.run == nil {
		req = httpRequest(addr, s.method, s.target, s.header, s.body)
	}
	allocs := heapAllocs()
	var r hostileResp
	if s.run != nil {
		r = s.run(t, e)
	} else {
		r = rawExchange(t, addr, req)
	}
	allocated := heapAllocs() - allocs
	calls := e.calls() - before
	res := hostileResult{status: r.status}
	if r.err != nil {
		t.Fatalf("no response: %v", r.err)
	}
	if r.status != s.status {
		t.Errorf("status %d, want %d: %.300s", r.status, s.status, r.body)
	}
	if r.status >= 400 && s.plain == "" {
		var st spb.Status
		if err := protojson.Unmarshal([]byte(r.body), &st); err != nil {
			t.Errorf("error body is not a google.rpc.Status: %v: %.300s", err, r.body)
		} else if codes.Code(st.GetCode()) != s.code {
			t.Errorf("code %v, want %v: %.300s", codes.Code(st.GetCode()), s.code, r.body)
		}
	}
	if s.nc && calls != 0 {
		res.ncCalls = calls
		t.Errorf("%d calls reached the method", calls)
	}
	if bound := s.mem; bound != 0 && !raceEnabled {
		if e.mode == "remote" && s.memRemote != 0 {
			bound = s.memRemote
		}
		if allocated > bound {
			t.Errorf("allocated %d bytes, want at most %d", allocated, bound)
		}
	}
	if s.closes && !r.closed {
		t.Error("the connection stayed open")
	}
	if s.check != nil {
		s.check(t, e, r)
	}
	if s.seen != nil {
		if calls == 0 {
			t.Error("the method was not called")
		} else {
			s.seen(t, e, e.backend.lastCall())
		}
	}
	return res
}

type hostileResult struct {
	status  int
	ncCalls int64
}

// hostileSummary counts what the shapes got, for the summary line.
type hostileSummary struct {
	mu       sync.Mutex
	modes    map[string]int
	statuses map[int]int
	panics   int64
	ncCalls  int64
}

func (s *hostileSummary) add(mode string, _ hostileShape, r hostileResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.modes == nil {
		s.modes, s.statuses = map[string]int{}, map[int]int{}
	}
	s.modes[mode]++
	if r.status != 0 {
		s.statuses[r.status]++
	}
	s.ncCalls += r.ncCalls
}

// String is the summary line, in the format scripts read:
// hostile summary: shapes=N in-process=N remote=N statuses=400:a,404:b,... panics=0 upstream-calls-on-NC=0
func (s *hostileSummary) String(shapes int) string {
	var st []string
	for _, code := range slices.Sorted(maps.Keys(s.statuses)) {
		st = append(st, fmt.Sprintf("%d:%d", code, s.statuses[code]))
	}
	return fmt.Sprintf("hostile summary: shapes=%d in-process=%d remote=%d statuses=%s panics=%d upstream-calls-on-NC=%d",
		shapes, s.modes["in-process"], s.modes["remote"], strings.Join(st, ","), s.panics, s.ncCalls)
}

// Checks.

func name(want string) func(*testing.T, *hostileEnv, hostileCall) {
	return func(t *testing.T, _ *hostileEnv, c hostileCall) {
		if got := c.name; got != want {
			t.Errorf("name %q, want %q", got, want)
		}
	}
}

func method(m, n string) func(*testing.T, *hostileEnv, hostileCall) {
	return func(t *testing.T, _ *hostileEnv, c hostileCall) {
		if c.method != m || c.name != n {
			t.Errorf("%s(name %q), want %s(name %q)", c.method, c.name, m, n)
		}
	}
}

func absent(keys ...string) func(*testing.T, *hostileEnv, hostileCall) {
	return func(t *testing.T, _ *hostileEnv, c hostileCall) {
		for _, k := range keys {
			if vs := c.md.Get(k); len(vs) != 0 {
				t.Errorf("metadata %s = %q", k, vs)
			}
		}
	}
}

func metadataIs(key string, want ...string) func(*testing.T, *hostileEnv, hostileCall) {
	return func(t *testing.T, _ *hostileEnv, c hostileCall) {
		if got := c.md.Get(key); !slices.Equal(got, want) {
			t.Errorf("metadata %s = %q, want %q", key, got, want)
		}
	}
}

func within(d time.Duration) func(*testing.T, *hostileEnv, hostileResp) {
	return func(t *testing.T, _ *hostileEnv, r hostileResp) {
		if r.took > d {
			t.Errorf("took %v, want at most %v", r.took, d)
		}
	}
}

func bodyHas(s string) func(*testing.T, *hostileEnv, hostileResp) {
	return func(t *testing.T, _ *hostileEnv, r hostileResp) {
		if !strings.Contains(r.body, s) {
			t.Errorf("body %.300s does not say %q", r.body, s)
		}
	}
}

func shortBody(n int) func(*testing.T, *hostileEnv, hostileResp) {
	return func(t *testing.T, _ *hostileEnv, r hostileResp) {
		if len(r.body) > n {
			t.Errorf("a body of %d bytes echoes the input: %.200s…", len(r.body), r.body)
		}
	}
}

func contentType(want string) func(*testing.T, *hostileEnv, hostileResp) {
	return func(t *testing.T, _ *hostileEnv, r hostileResp) {
		if ct := r.header.Get("Content-Type"); ct != want {
			t.Errorf("Content-Type %q, want %q", ct, want)
		}
	}
}

func allow(t *testing.T, _ *hostileEnv, r hostileResp) {
	if r.header.Get("Allow") == "" {
		t.Error("no Allow header")
	}
}

// Bodies.

// zstdWindow is a zstd frame (RFC 8878 §3.1.1) of {"name":"n"} whose
// header asks for a window of 2^log bytes: encoders shrink the window to
// fit small content, so it is written by hand.
func zstdWindow(log int) string {
	content := `{"name":"n"}`
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, // magic number
		0x00,              // descriptor: no content size, not single-segment, no checksum, no dictionary
		byte(log-10) << 3} // window descriptor: exponent log-10, mantissa 0
	block := len(content)<<3 | 1 // the last block, raw, of len(content) bytes
	frame = append(frame, byte(block), byte(block>>8), byte(block>>16))
	return string(append(frame, content...))
}

func acceptEncoding(t *testing.T, _ *hostileEnv, r hostileResp) {
	if got := r.header.Get("Accept-Encoding"); got != "gzip, zstd" {
		t.Errorf("Accept-Encoding %q, want gzip, zstd", got)
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	b.WriteString(`{"attrs":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":0`, i)
	}
	b.WriteString("}}")
	return b.String()
}

// deepValue is a binary Probe whose val (a google.protobuf.Value) nests
// lists n deep.
func deepValue(n int) string {
	var v []byte
	for range n {
		lv := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), v) // ListValue.values
		v = protowire.AppendBytes(protowire.AppendTag(nil, 6, protowire.BytesType), lv)  // Value.list_value
	}
	return string(protowire.AppendBytes(protowire.AppendTag(nil, 20, protowire.BytesType), v))
}

func chunked(body string, size int) string {
	var b strings.Builder
	for len(body) > 0 {
		n := min(size, len(body))
		fmt.Fprintf(&b, "%x\r\n%s\r\n", n, body[:n])
		body = body[n:]
	}
	b.WriteString("0\r\n\r\n")
	return b.String()
}

// hostileResp is what came back for one raw request.
type hostileResp struct {
	status int
	header http.Header
	body   string
	closed bool          // the server closed the connection after the response
	took   time.Duration // from the first byte sent to the response's end
	err    error         // no response could be read
}

// validTraceparent is the W3C Trace Context's example traceparent.
const validTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// tracestateMembers is a tracestate of n list members k0=v0, k1=v1…
func tracestateMembers(n int) string {
	members := make([]string, n)
	for i := range members {
		members[i] = fmt.Sprintf("k%d=v%d", i, i)
	}
	return strings.Join(members, ",")
}

// rawExchange writes req (an HTTP/1.1 request as bytes) on a new
// connection to addr and reads one response, and whether the server then
// closed the connection.
func rawExchange(t *testing.T, addr string, req []byte) hostileResp {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	start := time.Now()
	go func() {
		// Written from its own goroutine: the server may answer (and
		// stop reading) before the request has been sent whole.
		conn.Write(req)
	}()
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return hostileResp{err: err}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	r := hostileResp{status: resp.StatusCode, header: resp.Header, body: string(body), took: time.Since(start), err: err}
	conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := br.ReadByte(); err == io.EOF {
		r.closed = true
	}
	return r
}

// httpRequest is a request as raw bytes: the request line, Host, the
// headers as given, a Content-Length when there is a body and the headers
// give neither it nor Transfer-Encoding.
func httpRequest(addr, method, target string, header []string, body string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", method, target, addr)
	framed := false
	for i := 0; i+1 < len(header); i += 2 {
		fmt.Fprintf(&b, "%s: %s\r\n", header[i], header[i+1])
		if k := strings.ToLower(header[i]); k == "content-length" || k == "transfer-encoding" {
			framed = true
		}
	}
	if body != "" && !framed {
		b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n")
	}
	b.WriteString("\r\n")
	b.WriteString(body)
	return []byte(b.String())
}

// heapAllocs is the bytes allocated on the heap so far, by every
// goroutine of the test binary.
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// smuggle is H13: Content-Length and Transfer-Encoding: chunked on one
// request, a second request pipelined behind it. Chunked must win, and
// the second request be read once, as itself.
func smuggle(t *testing.T, e *hostileEnv) hostileResp {
	body := chunked(`{"name":"first"}`, 5)
	req := fmt.Sprintf("POST /v1/probes HTTP/1.1\r\nHost: %s\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n%s"+
		"GET /v1/probes/second HTTP/1.1\r\nHost: %[1]s\r\nConnection: close\r\n\r\n", e.addr, body)
	conn, err := net.DialTimeout("tcp", e.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	var first hostileResp
	for i, want := range []string{`"first"`, `"second"`} {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d: %v", i+1, err)
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Errorf("response %d: %d %s, want %s", i+1, resp.StatusCode, b, want)
		}
		if i == 0 {
			first = hostileResp{status: resp.StatusCode, header: resp.Header, body: string(b)}
		}
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("more after the second response (%v)", err)
	}
	return first
}

// expectContinue is S5: a request that announces 1 GiB and waits for
// 100 Continue; it must get its 413 instead, without the body.
func expectContinue(t *testing.T, e *hostileEnv) hostileResp {
	req := fmt.Sprintf("POST /v1/probes HTTP/1.1\r\nHost: %s\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", e.addr, 1<<30)
	return rawExchange(t, e.addr, []byte(req))
}
