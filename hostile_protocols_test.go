package protorest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/reflection"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// protoWire is how a hostile shape goes over one of the protocols the
// gateway serves at the canonical paths: its framing of the request body
// and headers, and its reading of the outcome.
type protoWire struct {
	name      string
	h2        bool                // sent over h2c (gRPC), else HTTP/1.1
	headers   []string            // Content-Type and the like
	enveloped bool                // the body is 5-byte envelopes; else one bare message (Connect unary)
	encode    func([]byte) []byte // the body's bytes as sent: base64 for gRPC-Web text
	outcome   func(*http.Response, []byte) (codes.Code, string)
}

var protoWires = []protoWire{
	{name: "grpc", h2: true, enveloped: true, headers: []string{"Content-Type", "application/grpc", "Te", "trailers"}, outcome: grpcOutcome},
	{name: "grpc-web", enveloped: true, headers: []string{"Content-Type", "application/grpc-web+proto", "X-Grpc-Web", "1"}, outcome: webOutcome},
	{name: "grpc-web-text", enveloped: true, headers: []string{"Content-Type", "application/grpc-web-text", "X-Grpc-Web", "1"},
		encode: func(b []byte) []byte { return []byte(base64.StdEncoding.EncodeToString(b)) }, outcome: webOutcome},
	{name: "connect", headers: []string{"Content-Type", "application/proto", "Connect-Protocol-Version", "1"}, outcome: connectOutcome},
}

// grpcOutcome reads grpc-status from the trailers, or the headers of a
// Trailers-Only response.
func grpcOutcome(resp *http.Response, _ []byte) (codes.Code, string) {
	code, msg := resp.Trailer.Get("Grpc-Status"), resp.Trailer.Get("Grpc-Message")
	if code == "" {
		code, msg = resp.Header.Get("Grpc-Status"), resp.Header.Get("Grpc-Message")
	}
	n, err := strconv.Atoi(code)
	if err != nil {
		return codes.Unknown, "HTTP " + resp.Status + ", no grpc-status"
	}
	return codes.Code(n), msg
}

// webOutcome reads grpc-status from gRPC-Web's trailer frame (base64 in
// the text mode), or the headers of a Trailers-Only response.
func webOutcome(resp *http.Response, body []byte) (codes.Code, string) {
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/grpc-web-text") {
		var raw []byte
		for i := 0; i+4 <= len(body); i += 4 {
			b, err := base64.StdEncoding.DecodeString(string(body[i : i+4]))
			if err != nil {
				return codes.Unknown, "response not base64"
			}
			raw = append(raw, b...)
		}
		body = raw
	}
	for len(body) >= 5 {
		n := int(binary.BigEndian.Uint32(body[1:5]))
		if len(body) < 5+n {
			break
		}
		if body[0]&0x80 != 0 {
			h := http.Header{}
			for _, line := range strings.Split(string(body[5:5+n]), "\r\n") {
				if k, v, ok := strings.Cut(line, ":"); ok {
					h.Add(k, strings.TrimSpace(v))
				}
			}
			resp.Trailer = h
		}
		body = body[5+n:]
	}
	return grpcOutcome(resp, nil)
}

// connectOutcome reads a Connect unary answer: OK, or its error JSON.
func connectOutcome(resp *http.Response, body []byte) (codes.Code, string) {
	if resp.StatusCode == http.StatusOK {
		return codes.OK, ""
	}
	var e struct{ Code, Message string }
	if err := json.Unmarshal(body, &e); err != nil {
		return codes.Unknown, "HTTP " + resp.Status + ": " + string(body)
	}
	var c connect.Code
	if err := c.UnmarshalText([]byte(e.Code)); err != nil {
		return codes.Unknown, "code " + e.Code
	}
	return codes.Code(c), e.Message
}

// protoShape is one hostile shape sent over each protocol of protoWires
// (those it applies to), in-process and remote: the outcome's code, the
// method not called where nc, the answer within its times and memory,
// what the method got checked.
type protoShape struct {
	id        string
	method    string            // of conf.v1.Probes
	msg       []byte            // the request message (bare), or
	envelopes []byte            // the request's envelopes as they are (enveloped protocols only)
	body      func([]byte) body // how the body's bytes arrive; nil: whole
	headers   []string          // besides the protocol's
	wires     []string          // the protocols it applies to; nil: all
	raw       bool              // envelopes sent as they are, not encoded (base64)

	code          codes.Code
	nc            bool
	after, within time.Duration
	mem           uint64
	seen          func(t *testing.T, c hostileCall)
}

// protoEnv is conf.v1.Probes served by a gateway at its canonical paths
// (no pass-through), in-process or on a real gRPC backend, on one port,
// HTTP/1.1 and h2c, with the idle timeouts and deadlines of the
// pass-through tests.
type protoEnv struct {
	url     string
	backend *hostileBackend
	h1, h2c *http.Client
}

func newProtoEnv(t *testing.T, mode string) *protoEnv {
	t.Helper()
	be := &hostileBackend{}
	be.streams.Store(newStreamer())
	opts := append(idleOptions(), protorest.WithDefaultTimeout(passDefaultTimeout), protorest.WithMaxTimeout(passMaxTimeout))
	if mode == "in-process" {
		opts = append(opts, protorest.WithUnaryInterceptors(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			be.calls.Add(1)
			return h(ctx, req)
		}))
	}
	gw := protorest.NewGateway(opts...)
	if mode == "in-process" {
		confv1.RegisterProbesServer(gw, be)
	} else {
		srv := grpc.NewServer(grpc.StatsHandler(rpcCounter{&be.calls}))
		confv1.RegisterProbesServer(srv, be)
		reflection.Register(srv)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := gw.RegisterRemote(ctx, dial(t, serveGRPC(t, srv)), protorest.WithReflection("conf.v1.Probes")); err != nil {
			t.Fatal(err)
		}
	}
	h2c := h2cClient()
	h2c.Timeout = 20 * time.Second
	return &protoEnv{url: h2cServer(t, gw).URL, backend: be, h1: &http.Client{Timeout: 20 * time.Second}, h2c: h2c}
}

// protoShapes are the hostile shapes of the pass-through (issue 22) and
// the envelopes' own (issue 23), for the protocols at the canonical
// paths.
func protoShapes() []protoShape {
	big := mustMarshal(&confv1.Probe{Blob: bytes.Repeat([]byte("x"), 5<<20)})
	bomb := gzipped(append(binary.AppendUvarint([]byte{0x42}, 64<<20), make([]byte, 64<<20)...)) // blob: 64 MiB of zeros
	abc := []byte(mustMarshal(&confv1.Probe{Name: "abc"}))
	enveloped := []string{"grpc", "grpc-web", "grpc-web-text"}
	owned := []string{"X-Forwarded-For", "6.6.6.6", "X-Real-Ip", "6.6.6.6", "Forwarded", "for=6.6.6.6",
		"X-Envoy-External-Address", "6.6.6.6", "Grpcgateway-Authorization", "Bearer spoof"}
	return []protoShape{
		{id: "size: a message of 5 MiB", method: "CreateProbe", msg: []byte(big),
			code: codes.ResourceExhausted, nc: true},
		{id: "size: a gzip bomb of 64 MiB", method: "CreateProbe", envelopes: frame(1, bomb), headers: []string{"Grpc-Encoding", "gzip"},
			wires: enveloped, code: codes.ResourceExhausted, nc: true, mem: 24 << 20},
		{id: "size: a gzip bomb of 64 MiB, Connect", method: "CreateProbe", msg: bomb, headers: []string{"Content-Encoding", "gzip"},
			wires: []string{"connect"}, code: codes.ResourceExhausted, nc: true, mem: 24 << 20},
		{id: "size: a length of 64 MiB, then nothing", method: "CreateProbe", envelopes: prefix(0, 64<<20), body: stalled,
			wires: enveloped, code: codes.ResourceExhausted, nc: true, within: idleMargin},
		{id: "size: a Content-Length of 64 MiB, then nothing", method: "CreateProbe", headers: []string{"Content-Length", strconv.Itoa(64 << 20)},
			body: stalled, wires: []string{"connect"}, code: codes.ResourceExhausted, nc: true, within: idleMargin},
		{id: "read idle: a message that stops", method: "CreateProbe", envelopes: append(prefix(0, 12), abc[:3]...), body: stalled,
			wires: enveloped, code: codes.DeadlineExceeded, nc: true, after: testReadIdle, within: testReadIdle + idleMargin},
		{id: "read idle: a message dripped, a byte every 40 ms", method: "CreateProbe", msg: []byte(mustMarshal(&confv1.Probe{Name: "a long name, slowly"})),
			body: dripped, code: codes.DeadlineExceeded, nc: true, after: testReadIdle, within: testReadIdle + idleMargin},
		{id: "stream idle: a chat with no message", method: "Chat", envelopes: []byte{}, body: stalled,
			wires: []string{"grpc"}, code: codes.DeadlineExceeded, after: testStreamIdle, within: testStreamIdle + idleMargin},
		{id: "envelope: a truncated frame", method: "CreateProbe", envelopes: append(prefix(0, 12), abc...),
			wires: enveloped, code: codes.Internal, nc: true},
		{id: "envelope: an unknown compression", method: "CreateProbe", envelopes: frame(1, abc), headers: []string{"Grpc-Encoding", "br"},
			wires: enveloped, code: codes.Unimplemented, nc: true},
		{id: "envelope: the compressed flag without an encoding", method: "CreateProbe", envelopes: frame(1, abc),
			wires: enveloped, code: codes.Internal, nc: true},
		{id: "envelope: a second message to a unary method", method: "CreateProbe", envelopes: append(frame(0, abc), frame(0, abc)...),
			wires: enveloped, code: codes.Unimplemented, nc: true},
		{id: "envelope: invalid base64", method: "CreateProbe", envelopes: []byte("AAAA!!!!"), raw: true,
			wires: []string{"grpc-web-text"}, code: codes.InvalidArgument, nc: true},
		{id: "compression: an unknown Content-Encoding", method: "CreateProbe", msg: abc, headers: []string{"Content-Encoding", "br"},
			wires: []string{"connect"}, code: codes.Unimplemented, nc: true},
		{id: "metadata: 9 KiB", method: "GetProbe", msg: abc, headers: []string{"X-Big", strings.Repeat("x", 9<<10)},
			code: codes.ResourceExhausted, nc: true},
		{id: "metadata: the gateway's keys from the client", method: "GetProbe", msg: abc, headers: owned,
			code: codes.OK, seen: func(t *testing.T, c hostileCall) {
				for _, k := range []string{"x-real-ip", "forwarded", "x-envoy-external-address", "grpcgateway-authorization"} {
					if v := c.md.Get(k); v != nil {
						t.Errorf("%s = %q reached the method", k, v)
					}
				}
				if f := c.md.Get("x-forwarded-for"); len(f) != 1 || f[0] != "6.6.6.6, 127.0.0.1" {
					t.Errorf("x-forwarded-for %q", f)
				}
			}},
		{id: "deadline: Grpc-Timeout 99999999S", method: "GetProbe", msg: abc, headers: []string{"Grpc-Timeout", "99999999S"},
			wires: enveloped, code: codes.OK, seen: protoDeadlineNear(passMaxTimeout)},
		{id: "deadline: Connect-Timeout-Ms 9999999999", method: "GetProbe", msg: abc, headers: []string{"Connect-Timeout-Ms", "9999999999"},
			wires: []string{"connect"}, code: codes.OK, seen: protoDeadlineNear(passMaxTimeout)},
		{id: "deadline: none given, a unary method", method: "GetProbe", msg: abc,
			code: codes.OK, seen: protoDeadlineNear(passDefaultTimeout)},
	}
}

func protoDeadlineNear(d time.Duration) func(*testing.T, hostileCall) {
	check := deadlineNear(d)
	return func(t *testing.T, c hostileCall) { check(t, nil, c) }
}

// TestHostileProtocols sends each shape over each protocol it applies
// to, in-process and remote.
func TestHostileProtocols(t *testing.T) {
	for _, mode := range []string{"in-process", "remote"} {
		e := newProtoEnv(t, mode)
		for _, s := range protoShapes() {
			for _, w := range protoWires {
				if s.wires != nil && !contains(s.wires, w.name) || s.envelopes != nil && !w.enveloped {
					continue
				}
				t.Run(mode+"/"+s.id+"/"+w.name, func(t *testing.T) { runProtoShape(t, e, s, w) })
			}
		}
	}
}

func runProtoShape(t *testing.T, e *protoEnv, s protoShape, w protoWire) {
	e.backend.streams.Store(newStreamer())
	e.backend.mu.Lock()
	e.backend.last = hostileCall{}
	e.backend.mu.Unlock()
	payload := s.envelopes
	if payload == nil {
		payload = s.msg
		if w.enveloped {
			flags := byte(0)
			payload = frame(flags, s.msg)
		}
	}
	if w.encode != nil && !s.raw {
		payload = w.encode(payload)
	}
	how := s.body
	if how == nil {
		how = whole
	}
	done := make(chan struct{})
	defer close(done)
	req, err := http.NewRequest(http.MethodPost, e.url+"/conf.v1.Probes/"+s.method, how(payload)(done))
	if err != nil {
		t.Fatal(err)
	}
	for _, hs := range [][]string{w.headers, s.headers} {
		for i := 0; i+1 < len(hs); i += 2 {
			if hs[i] == "Content-Length" {
				req.ContentLength, _ = strconv.ParseInt(hs[i+1], 10, 64)
				continue
			}
			req.Header.Set(hs[i], hs[i+1])
		}
	}
	client := e.h1
	if w.h2 {
		client = e.h2c
	}
	calls := e.backend.calls.Load()
	allocs := heapAllocs()
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	allocated := heapAllocs() - allocs
	code, msg := w.outcome(resp, body)
	if code != s.code {
		t.Errorf("code %v %q, want %v (HTTP %d)", code, msg, s.code, resp.StatusCode)
	}
	called := e.backend.calls.Load() - calls
	if s.nc && called != 0 {
		t.Errorf("%d calls reached the method", called)
	}
	if took < s.after || s.within > 0 && took > s.within {
		t.Errorf("answered after %v, want between %v and %v", took, s.after, s.within)
	}
	if s.mem > 0 && !raceEnabled && allocated > s.mem {
		t.Errorf("allocated %d bytes, want at most %d", allocated, s.mem)
	}
	if s.seen != nil {
		if called == 0 {
			t.Fatal("the method was not called")
		}
		s.seen(t, e.backend.lastCall())
	}
}
