package protorest_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/binary"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// passShape is one hostile shape sent to one port twice: as a REST
// request, and as a gRPC call that the gateway forwards unchanged
// (GRPCPassThrough). Both must meet the same limit: the same code (REST's
// as a google.rpc.Status body), the backend not called where nc, the
// answer within the same times, and what the method got checked alike.
type passShape struct {
	id   string
	rest func(t *testing.T, e *passEnv) passResult
	grpc func(t *testing.T, e *passEnv) passResult

	status        int // REST's HTTP status
	code          codes.Code
	nc            bool          // the backend is not called
	after, within time.Duration // the answer comes no sooner than after, and within within (0: no bound)
	mem           uint64        // the most each may allocate (heapAllocs), in bytes; 0: not measured
	seen          func(t *testing.T, e *passEnv, c hostileCall)
}

// passResult is an answer: REST's HTTP status (0 for gRPC), and the code
// and message of the call.
type passResult struct {
	status int
	code   codes.Code
	msg    string
}

// The settings of the pass-through tests: the read and stream idle
// timeouts of the idle tests, and deadlines of their own to tell apart.
const (
	passDefaultTimeout = 7 * time.Second
	passMaxTimeout     = 9 * time.Second
)

// passEnv is conf.v1.Probes on a real gRPC backend, served by a gateway
// as REST and gRPC on one h2c port, with the pass-through tests' settings
// and then opts.
type passEnv struct {
	addr, url string
	backend   *hostileBackend
	probes    confv1.ProbesClient // grpc-go, to the gateway's port
	h2c       *http.Client        // HTTP/2 with prior knowledge, for raw gRPC
}

func newPassEnv(t *testing.T, opts ...protorest.Option) *passEnv {
	t.Helper()
	be := &hostileBackend{}
	be.streams.Store(newStreamer())
	srv := grpc.NewServer(grpc.StatsHandler(rpcCounter{&be.calls}))
	confv1.RegisterProbesServer(srv, be)
	reflection.Register(srv)
	conn := dial(t, serveGRPC(t, srv))
	gw := protorest.NewGateway(append(append(idleOptions(),
		protorest.WithDefaultTimeout(passDefaultTimeout), protorest.WithMaxTimeout(passMaxTimeout)), opts...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := gw.RegisterRemote(ctx, conn, protorest.WithReflection("conf.v1.Probes")); err != nil {
		t.Fatal(err)
	}
	hs := h2cServer(t, gw.GRPCPassThrough(conn))
	e := &passEnv{addr: hs.Listener.Addr().String(), url: hs.URL, backend: be}
	client, err := grpc.NewClient(e.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	e.probes = confv1.NewProbesClient(client)
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	e.h2c = &http.Client{Transport: tr, Timeout: 20 * time.Second}
	t.Cleanup(tr.CloseIdleConnections)
	return e
}

// passShapes are the shapes of issue 22 point 1, each as REST and gRPC.
func passShapes() []passShape {
	big := strings.Repeat("x", 5<<20)
	bigJSON := `{"blob":"` + base64.StdEncoding.EncodeToString([]byte(big)) + `"}`
	bomb := gzipped(append(binary.AppendUvarint([]byte{0x42}, 64<<20), make([]byte, 64<<20)...)) // blob: 64 MiB of zeros
	jsonBomb := gzipped([]byte(`{"name":"` + strings.Repeat("a", 64<<20) + `"}`))
	owned := []string{"X-Forwarded-For", "6.6.6.6", "X-Forwarded-Host", "evil", "X-Real-Ip", "6.6.6.6", "Forwarded", "for=6.6.6.6",
		"X-Envoy-External-Address", "6.6.6.6", "Grpcgateway-Authorization", "Bearer spoof", "X-Forwarded-Proto", "https"}
	upper := "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01"
	return []passShape{
		{id: "size: a message of 5 MiB",
			rest:   restCall("POST", "/v1/probes", whole([]byte(bigJSON))),
			grpc:   grpcCall("CreateProbe", &confv1.Probe{Blob: []byte(big)}),
			status: 413, code: codes.ResourceExhausted, nc: true},
		{id: "size: a gzip bomb of 64 MiB",
			rest:   restCall("POST", "/v1/probes", whole(jsonBomb), "Content-Encoding", "gzip"),
			grpc:   rawGRPC("/conf.v1.Probes/CreateProbe", whole(frame(1, bomb)), "Grpc-Encoding", "gzip"),
			status: 413, code: codes.ResourceExhausted, nc: true, mem: 24 << 20},
		{id: "size: a length of 64 MiB, then nothing",
			rest:   restCall("POST", "/v1/probes", stalled(nil), "Content-Length", strconv.Itoa(64<<20)),
			grpc:   rawGRPC("/conf.v1.Probes/CreateProbe", stalled(prefix(0, 64<<20))),
			status: 413, code: codes.ResourceExhausted, nc: true},
		{id: "read idle: a message that stops",
			rest:   restCall("POST", "/v1/probes", stalled([]byte(`{"na`)), "Content-Length", "10"),
			grpc:   rawGRPC("/conf.v1.Probes/CreateProbe", stalled(append(prefix(0, 10), 0x0a, 0x08, 'a', 'b'))),
			status: 408, code: codes.DeadlineExceeded, nc: true, after: testReadIdle, within: testReadIdle + idleMargin},
		{id: "read idle: a message dripped, a byte every 40 ms",
			rest:   restCall("POST", "/v1/probes", dripped([]byte(`{"name":"a long name, slowly"}`))),
			grpc:   rawGRPC("/conf.v1.Probes/CreateProbe", dripped(frame(0, []byte(mustMarshal(&confv1.Probe{Name: "a long name, slowly"}))))),
			status: 408, code: codes.DeadlineExceeded, nc: true, after: testReadIdle, within: testReadIdle + idleMargin},
		{id: "stream idle: a chat with no message",
			rest: restCall("POST", "/v1/chat", stalled(nil)),
			grpc: func(t *testing.T, e *passEnv) passResult {
				stream, err := e.probes.Chat(context.Background())
				if err != nil {
					return grpcResult(err)
				}
				_, err = stream.Recv()
				return grpcResult(err)
			},
			status: 408, code: codes.DeadlineExceeded, after: testStreamIdle, within: testStreamIdle + idleMargin},
		{id: "metadata: 9 KiB",
			rest:   restCall("GET", "/v1/probes/abc", nil, "Grpc-Metadata-X-Big", strings.Repeat("x", 9<<10)),
			grpc:   grpcCall("GetProbe", &confv1.Probe{Name: "abc"}, "x-big", strings.Repeat("x", 9<<10)),
			status: 431, code: codes.ResourceExhausted, nc: true},
		{id: "metadata: the gateway's keys from the client",
			rest:   restCall("GET", "/v1/probes/abc", nil, restHeaders(owned)...),
			grpc:   grpcCall("GetProbe", &confv1.Probe{Name: "abc"}, owned...),
			status: 200, code: codes.OK,
			seen: func(t *testing.T, e *passEnv, c hostileCall) {
				for _, k := range []string{"x-real-ip", "forwarded", "x-envoy-external-address", "grpcgateway-authorization", "x-forwarded-proto"} {
					if v := c.md.Get(k); v != nil {
						t.Errorf("%s = %q reached the method", k, v)
					}
				}
				if !slices.Equal(c.md.Get("x-forwarded-for"), []string{"6.6.6.6, 127.0.0.1"}) || !slices.Equal(c.md.Get("x-forwarded-host"), []string{e.addr}) {
					t.Errorf("x-forwarded-for %q, x-forwarded-host %q", c.md.Get("x-forwarded-for"), c.md.Get("x-forwarded-host"))
				}
			}},
		{id: "deadline: Grpc-Timeout 99999999S",
			rest:   restCall("GET", "/v1/probes/abc", nil, "Grpc-Timeout", "99999999S"),
			grpc:   rawGRPC("/conf.v1.Probes/GetProbe", whole(frame(0, []byte(mustMarshal(&confv1.Probe{Name: "abc"})))), "Grpc-Timeout", "99999999S"),
			status: 200, code: codes.OK, seen: deadlineNear(passMaxTimeout)},
		{id: "deadline: none given, a unary method",
			rest:   restCall("GET", "/v1/probes/abc", nil),
			grpc:   grpcCall("GetProbe", &confv1.Probe{Name: "abc"}),
			status: 200, code: codes.OK, seen: deadlineNear(passDefaultTimeout)},
		{id: "trace context: an invalid traceparent",
			rest:   restCall("GET", "/v1/probes/abc", nil, "Traceparent", upper, "Tracestate", "a=1"),
			grpc:   grpcCall("GetProbe", &confv1.Probe{Name: "abc"}, "traceparent", upper, "tracestate", "a=1"),
			status: 200, code: codes.OK,
			seen: func(t *testing.T, e *passEnv, c hostileCall) {
				if c.md.Get("traceparent") != nil || c.md.Get("tracestate") != nil {
					t.Errorf("traceparent %q, tracestate %q reached the method", c.md.Get("traceparent"), c.md.Get("tracestate"))
				}
			}},
		{id: "trace context: a valid traceparent",
			rest:   restCall("GET", "/v1/probes/abc", nil, "Traceparent", validTraceparent, "Tracestate", "a=1"),
			grpc:   grpcCall("GetProbe", &confv1.Probe{Name: "abc"}, "traceparent", validTraceparent, "tracestate", "a=1"),
			status: 200, code: codes.OK,
			seen: func(t *testing.T, e *passEnv, c hostileCall) {
				if !slices.Equal(c.md.Get("traceparent"), []string{validTraceparent}) || !slices.Equal(c.md.Get("tracestate"), []string{"a=1"}) {
					t.Errorf("traceparent %q, tracestate %q", c.md.Get("traceparent"), c.md.Get("tracestate"))
				}
			}},
	}
}

// TestHostilePassThrough runs each pass-through shape as REST and as
// gRPC on the same port.
func TestHostilePassThrough(t *testing.T) {
	e := newPassEnv(t)
	for _, s := range passShapes() {
		t.Run(s.id, func(t *testing.T) {
			for _, side := range []struct {
				name string
				send func(*testing.T, *passEnv) passResult
			}{{"REST", s.rest}, {"gRPC", s.grpc}} {
				t.Run(side.name, func(t *testing.T) { runPassShape(t, e, s, side.name == "REST", side.send) })
			}
		})
	}
}

func runPassShape(t *testing.T, e *passEnv, s passShape, rest bool, send func(*testing.T, *passEnv) passResult) {
	e.backend.streams.Store(newStreamer())
	e.backend.mu.Lock()
	e.backend.last = hostileCall{}
	e.backend.mu.Unlock()
	calls := e.backend.calls.Load()
	allocs := heapAllocs()
	start := time.Now()
	r := send(t, e)
	took := time.Since(start)
	allocated := heapAllocs() - allocs
	if rest && r.status != s.status {
		t.Errorf("status %d, want %d", r.status, s.status)
	}
	if r.code != s.code {
		t.Errorf("code %v %q, want %v", r.code, r.msg, s.code)
	}
	called := e.backend.calls.Load() - calls
	if s.nc && called != 0 {
		t.Errorf("%d calls reached the backend", called)
	}
	if took < s.after || s.within > 0 && took > s.within {
		t.Errorf("answered after %v, want between %v and %v", took, s.after, s.within)
	}
	if s.mem > 0 {
		t.Logf("allocated %d bytes", allocated)
	}
	if s.mem > 0 && !raceEnabled && allocated > s.mem {
		t.Errorf("allocated %d bytes, want at most %d", allocated, s.mem)
	}
	if s.seen != nil {
		if called == 0 {
			t.Fatal("the method was not called")
		}
		s.seen(t, e, e.backend.lastCall())
	}
}

// A body is a request body that a call reads until done is closed (the
// call has ended).
type body func(done <-chan struct{}) io.Reader

// restCall sends a REST request over HTTP/1.1, with headers, and reads
// the code of its google.rpc.Status body.
func restCall(method, target string, b body, headers ...string) func(*testing.T, *passEnv) passResult {
	return func(t *testing.T, e *passEnv) passResult {
		done := make(chan struct{})
		defer close(done)
		var rd io.Reader
		if b != nil {
			rd = b(done)
		}
		client := &http.Client{Timeout: 20 * time.Second}
		got := fetchWith(t, client, method, e.url+target, rd, headers...)
		res := passResult{status: got.code}
		if got.code >= 400 {
			var st spb.Status
			if err := protojson.Unmarshal([]byte(got.body), &st); err != nil {
				t.Errorf("error body is not a google.rpc.Status: %v: %.300s", err, got.body)
			}
			res.code, res.msg = codes.Code(st.GetCode()), st.GetMessage()
		}
		return res
	}
}

// grpcCall calls a unary method of conf.v1.Probes with grpc-go, with
// metadata (name, value pairs).
func grpcCall(method string, req *confv1.Probe, md ...string) func(*testing.T, *passEnv) passResult {
	return func(t *testing.T, e *passEnv) passResult {
		// No deadline: the gateway's default bounds the call.
		ctx := metadata.AppendToOutgoingContext(context.Background(), md...)
		var err error
		switch method {
		case "CreateProbe":
			_, err = e.probes.CreateProbe(ctx, req)
		case "GetProbe":
			_, err = e.probes.GetProbe(ctx, req)
		default:
			t.Fatalf("no call of %s", method)
		}
		return grpcResult(err)
	}
}

func grpcResult(err error) passResult {
	st := status.Convert(err)
	return passResult{code: st.Code(), msg: st.Message()}
}

// rawGRPC posts a gRPC call over HTTP/2 with prior knowledge, with
// headers, and reads the grpc-status of the answer.
func rawGRPC(path string, b body, headers ...string) func(*testing.T, *passEnv) passResult {
	return func(t *testing.T, e *passEnv) passResult {
		done := make(chan struct{})
		defer close(done)
		req, err := http.NewRequest("POST", e.url+path, b(done))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/grpc")
		req.Header.Set("Te", "trailers")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := e.h2c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		code, msg := resp.Trailer.Get("Grpc-Status"), resp.Trailer.Get("Grpc-Message")
		if code == "" { // trailers-only
			code, msg = resp.Header.Get("Grpc-Status"), resp.Header.Get("Grpc-Message")
		}
		n, err := strconv.Atoi(code)
		if err != nil {
			t.Fatalf("HTTP %d, grpc-status %q", resp.StatusCode, code)
		}
		return passResult{code: codes.Code(n), msg: msg}
	}
}

// prefix is a gRPC message's prefix: its flags and length.
func prefix(flags byte, n int) []byte {
	p := []byte{flags, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(p[1:], uint32(n))
	return p
}

// frame is msg as a gRPC message, compressed (flags 1) or not.
func frame(flags byte, msg []byte) []byte { return append(prefix(flags, len(msg)), msg...) }

// whole is a body of b.
func whole(b []byte) body {
	return func(<-chan struct{}) io.Reader { return bytes.NewReader(b) }
}

// stalled is a body that gives b, then nothing until the call has ended.
func stalled(b []byte) body {
	return piped(func(w io.Writer, done <-chan struct{}) {
		w.Write(b)
		<-done
	})
}

// dripped is a body that gives b a byte every 40 ms.
func dripped(b []byte) body {
	return piped(func(w io.Writer, done <-chan struct{}) {
		for _, c := range b {
			if _, err := w.Write([]byte{c}); err != nil {
				return
			}
			select {
			case <-done:
				return
			case <-time.After(40 * time.Millisecond):
			}
		}
	})
}

// piped is a body that write writes, which ends when the call does: a
// write the call did not read then fails.
func piped(write func(w io.Writer, done <-chan struct{})) body {
	return func(done <-chan struct{}) io.Reader {
		pr, pw := io.Pipe()
		go func() {
			<-done
			pr.Close()
		}()
		go func() {
			write(pw, done)
			pw.Close()
		}()
		return pr
	}
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// restHeaders are the metadata pairs md as REST sends them: the keys
// that stand for a header of their own under that header's name (the
// forwarded ones), the others as Grpc-Metadata-*.
func restHeaders(md []string) []string {
	var h []string
	for i := 0; i+1 < len(md); i += 2 {
		k := md[i]
		if !strings.HasPrefix(k, "X-Forwarded-For") && !strings.HasPrefix(k, "X-Forwarded-Host") {
			k = "Grpc-Metadata-" + k
		}
		h = append(h, k, md[i+1])
	}
	return h
}

// deadlineNear checks that the method's deadline was d away, less what
// the call took to reach it.
func deadlineNear(d time.Duration) func(*testing.T, *passEnv, hostileCall) {
	return func(t *testing.T, _ *passEnv, c hostileCall) {
		if c.deadline > d || c.deadline < d-2*time.Second {
			t.Errorf("deadline %v away, want %v", c.deadline, d)
		}
	}
}
