package protorest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/reflection"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// holder is conf.v1.Probes with methods that hold: GetProbe of "hold"
// and Watch with flag answer only when cancelled; BulkCreate and Chat
// read until the client ends its body. in counts the calls in progress.
type holder struct {
	confv1.UnimplementedProbesServer
	in atomic.Int64
}

func (h *holder) GetProbe(ctx context.Context, req *confv1.Probe) (*confv1.Probe, error) {
	if req.GetName() == "hold" {
		h.in.Add(1)
		defer h.in.Add(-1)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return req, nil
}

func (h *holder) Watch(req *confv1.Probe, s grpc.ServerStreamingServer[confv1.Probe]) error {
	h.in.Add(1)
	defer h.in.Add(-1)
	if req.GetFlag() {
		<-s.Context().Done()
		return s.Context().Err()
	}
	return s.Send(req)
}

func (h *holder) BulkCreate(s grpc.ClientStreamingServer[confv1.Probe, confv1.Probe]) error {
	h.in.Add(1)
	defer h.in.Add(-1)
	for {
		if _, err := s.Recv(); err == io.EOF {
			return s.SendAndClose(&confv1.Probe{})
		} else if err != nil {
			return err
		}
	}
}

func (h *holder) Chat(s grpc.BidiStreamingServer[confv1.Probe, confv1.Probe]) error {
	h.in.Add(1)
	defer h.in.Add(-1)
	for {
		if _, err := s.Recv(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// holderGateway serves h in-process, or (kind "remote") through a real
// gRPC backend reached over a BackendPool of two connections.
func holderGateway(t *testing.T, kind string, h *holder, opts ...protorest.Option) string {
	t.Helper()
	gw := protorest.NewGateway(opts...)
	if kind == "in-process" {
		confv1.RegisterProbesServer(gw, h)
	} else {
		backend := grpc.NewServer()
		confv1.RegisterProbesServer(backend, h)
		reflection.Register(backend)
		pool, err := protorest.NewBackendPool(serveGRPC(t, backend), protorest.BackendPoolSize{Connections: 2},
			grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pool.Close() })
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if err := gw.RegisterRemote(ctx, pool, protorest.WithReflection("conf.v1.Probes")); err != nil {
			t.Fatal(err)
		}
	}
	return h2cServer(t, gw).URL
}

// heldCall is one call of each class, held open until the test ends.
type heldCall struct {
	class string
	open  func(t *testing.T, ctx context.Context, url string) (code int, retryAfter, body string)
}

// holdRequest sends method url with a body that stays open (its first
// line sent) and returns the status, or 0 when the call is held past
// 300 ms, the request then left open until ctx ends.
func holdRequest(t *testing.T, ctx context.Context, method, url, first string) (int, string, string) {
	t.Helper()
	pr, pw := io.Pipe()
	go func() {
		if first != "" {
			pw.Write([]byte(first))
		}
		<-ctx.Done()
		pw.Close()
	}()
	if first == "" {
		pr = nil
	}
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pr != nil {
		req.Body = pr
	}
	type answer struct {
		resp *http.Response
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		got <- answer{resp, err}
	}()
	select {
	case a := <-got:
		if a.err != nil {
			t.Fatalf("%s %s: %v", method, url, a.err)
		}
		b, _ := io.ReadAll(a.resp.Body)
		a.resp.Body.Close()
		return a.resp.StatusCode, a.resp.Header.Get("Retry-After"), string(b)
	case <-time.After(300 * time.Millisecond):
		return 0, "", "" // held: answered only when ctx ends
	}
}

var heldCalls = []heldCall{
	{"unary", func(t *testing.T, ctx context.Context, url string) (int, string, string) {
		return holdRequest(t, ctx, "GET", url+"/v1/probes/hold", "")
	}},
	{"server stream", func(t *testing.T, ctx context.Context, url string) (int, string, string) {
		return holdRequest(t, ctx, "GET", url+"/v1/watch/w?flag=true", "")
	}},
	{"client stream", func(t *testing.T, ctx context.Context, url string) (int, string, string) {
		return holdRequest(t, ctx, "POST", url+"/v1/bulk", `{"name":"a"}`+"\n")
	}},
	{"bidi stream", func(t *testing.T, ctx context.Context, url string) (int, string, string) {
		return holdRequest(t, ctx, "POST", url+"/v1/chat", `{"name":"a"}`+"\n")
	}},
	{"WebSocket", func(t *testing.T, ctx context.Context, url string) (int, string, string) {
		c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/v1/watch/w?flag=true", nil)
		if err != nil {
			if resp == nil {
				t.Fatalf("WebSocket: %v", err)
			}
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, resp.Header.Get("Retry-After"), string(b)
		}
		context.AfterFunc(ctx, func() { c.CloseNow() })
		return 0, "", ""
	}},
}

// TestConcurrencyLimits: with every class capped at 1, one call of each
// class held open leaves the next of that class a 503 with Retry-After at
// once, in-process and remote (over a BackendPool), while a class with
// room is served; once the held calls end, each class is served again.
func TestConcurrencyLimits(t *testing.T) {
	t.Parallel()
	limits := protorest.ConcurrencyLimits{Unary: 2, ServerStreams: 1, ClientStreams: 1, BidiStreams: 1, WebSockets: 1}
	for _, kind := range []string{"in-process", "remote"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			h := new(holder)
			url := holderGateway(t, kind, h, protorest.WithConcurrencyLimits(limits))
			hold, release := context.WithCancel(t.Context())
			defer release()
			for i, c := range heldCalls {
				if code, _, body := c.open(t, hold, url); code != 0 {
					t.Fatalf("%s: %d %s, want it held", c.class, code, body)
				}
				waitUntil(t, c.class+" held", func() bool { return h.in.Load() == int64(i+1) })
			}
			if code, _, body := holdRequest(t, t.Context(), "GET", url+"/v1/probes/ok", ""); code != 200 {
				t.Errorf("unary, the second of 2: %d %s", code, body)
			}
			if code, _, _ := heldCalls[0].open(t, hold, url); code != 0 {
				t.Fatalf("unary, held: %d", code)
			}
			for _, c := range heldCalls {
				start := time.Now()
				code, retry, body := c.open(t, t.Context(), url)
				want := `{"code":14,"message":"too many ` + map[string]string{"unary": "unary calls", "server stream": "server streams",
					"client stream": "client streams", "bidi stream": "bidirectional streams", "WebSocket": "WebSockets"}[c.class] + ` in flight: try again","details":[]}`
				if code != 503 || retry != "1" || body != want {
					t.Errorf("%s over its cap: %d, Retry-After %q, %s; want 503, 1, %s", c.class, code, retry, body, want)
				}
				if took := time.Since(start); took > 250*time.Millisecond {
					t.Errorf("%s over its cap answered after %v", c.class, took)
				}
			}
			release()
			waitUntil(t, "the held calls ended", func() bool { return h.in.Load() == 0 })
			for _, target := range []string{"/v1/probes/ok", "/v1/watch/w"} {
				waitUntil(t, target+" served again", func() bool {
					code, _, _ := holdRequest(t, t.Context(), "GET", url+target, "")
					return code == 200
				})
			}
		})
	}
}

// TestBackendPoolFull: against a backend that allows 2 streams a
// connection, a pool of 2 connections holds 4 streams; the next call,
// unary or not, gets 503 "the upstream is busy" with Retry-After at once
// rather than waiting for a stream; one held call's end lets calls in.
func TestBackendPoolFull(t *testing.T) {
	t.Parallel()
	h := new(holder)
	backend := grpc.NewServer(grpc.MaxConcurrentStreams(2))
	confv1.RegisterProbesServer(backend, h)
	reflection.Register(backend)
	pool, err := protorest.NewBackendPool(serveGRPC(t, backend), protorest.BackendPoolSize{Connections: 2, MaxStreams: 2},
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if n := len(pool.Conns()); n != 2 {
		t.Fatalf("%d connections", n)
	}
	gw := protorest.NewGateway()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := gw.RegisterRemote(ctx, pool, protorest.WithReflection("conf.v1.Probes")); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	defer srv.Close()
	var holds []context.CancelFunc
	defer func() {
		for _, c := range holds {
			c()
		}
	}()
	for i := range 4 {
		hctx, hcancel := context.WithCancel(t.Context())
		holds = append(holds, hcancel)
		if code, _, body := holdRequest(t, hctx, "GET", srv.URL+"/v1/watch/w?flag=true", ""); code != 0 {
			t.Fatalf("stream %d: %d %s", i, code, body)
		}
		waitUntil(t, "stream held", func() bool { return h.in.Load() == int64(i+1) })
	}
	const busy = `{"code":14,"message":"the upstream is busy: every connection to it is at its limit of concurrent streams","details":[]}`
	for _, target := range []string{"/v1/probes/ok", "/v1/watch/w"} {
		start := time.Now()
		code, retry, body := holdRequest(t, t.Context(), "GET", srv.URL+target, "")
		if code != 503 || retry != "1" || body != busy || time.Since(start) > 250*time.Millisecond {
			t.Errorf("%s with the pool full: %d, Retry-After %q, %s after %v", target, code, retry, body, time.Since(start))
		}
	}
	holds[0]()
	waitUntil(t, "a unary call once a stream ended", func() bool {
		code, _, _ := holdRequest(t, t.Context(), "GET", srv.URL+"/v1/probes/ok", "")
		return code == 200
	})
}

// waitUntil fails t unless ok holds within 5 s.
func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	if !waitFor(5*time.Second, ok) {
		t.Fatalf("%s: not within 5s", what)
	}
}

// TestUnaryCapHeldOnlyByTheCall: a unary call's place within its class's
// cap is given back once the method's call has ended, not once its answer
// is written. With the unary cap at 2, four 58 KB answers (two REST, two
// Connect) held by a client
// that never opens its window (the response budget and the write timeout
// bound them) leave room for the next calls: REST and Connect, in-process
// and remote. The calls themselves still count while they run
// (TestConcurrencyLimits).
func TestUnaryCapHeldOnlyByTheCall(t *testing.T) {
	t.Parallel()
	const connectBlob = `{"name":"blob"}`
	for _, kind := range []string{"in-process", "remote"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			opts := []protorest.Option{protorest.WithConcurrencyLimits(protorest.ConcurrencyLimits{Unary: 2})}
			var srv *httptest.Server
			if kind == "in-process" {
				srv = newServerTest(t, newFixture(t, "A", largeReplies(43000), opts...))
			} else {
				srv = newServerTest(t, remoteFixture(t, largeReplies(43000), opts...))
			}
			stalled := dialStalled(t, srv.Listener.Addr().String())
			for i := range 4 { // one after the other: the calls count while they run
				var id uint32
				if i%2 == 0 {
					id = stalled.Get(t, "/v1/probes/blob")
				} else {
					id = stalled.Post(t, "/conf.v1.Probes/GetProbe", []byte(connectBlob),
						[2]string{"content-type", "application/json"}, [2]string{"connect-protocol-version", "1"})
				}
				waitUntil(t, "the stalled answer's headers", func() bool { return stalled.Status(id) != 0 })
				if code := stalled.Status(id); code != 200 {
					t.Fatalf("stalled answer %d: %d, want 200 (held by the client's window)", i, code)
				}
			}
			client := &http.Client{Timeout: 5 * time.Second}
			for range 3 {
				if n := fetchAll200(t, client, srv.URL+"/v1/probes/blob"); n < 43000 {
					t.Errorf("REST beside the stalled answers: %d bytes", n)
				}
				req, _ := http.NewRequest("POST", srv.URL+"/conf.v1.Probes/GetProbe", strings.NewReader(connectBlob))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Connect-Protocol-Version", "1")
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || len(body) < 43000 {
					t.Errorf("Connect beside the stalled answers: %d, %.200s", resp.StatusCode, body)
				}
			}
		})
	}
}
