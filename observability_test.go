package protorest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	"github.com/protorest/protorest"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	"github.com/protorest/protorest/examples/services"
)

// observing wraps h as an access log or a metrics middleware would: a
// CallInfo in the context before, read after.
type observing struct {
	h    http.Handler
	mu   sync.Mutex
	last protorest.CallInfo
}

func (o *observing) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ci := new(protorest.CallInfo)
	o.h.ServeHTTP(w, r.WithContext(protorest.NewCallInfoContext(r.Context(), ci)))
	o.mu.Lock()
	o.last = *ci
	o.mu.Unlock()
}

func (o *observing) take() protorest.CallInfo {
	o.mu.Lock()
	defer o.mu.Unlock()
	ci := o.last
	o.last = protorest.CallInfo{}
	return ci
}

// TestCallInfo: a middleware's CallInfo gets the route, the gRPC outcome
// and the message counts of every kind of request, in-process and
// remote, and the route is in the context the method sees.
func TestCallInfo(t *testing.T) {
	t.Parallel()
	var seen sync.Map // full method → the route the interceptor found
	inproc := protorest.NewGateway(
		protorest.WithUnaryInterceptors(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if rt, ok := protorest.RouteFromContext(ctx); ok {
				seen.Store(info.FullMethod, rt)
			}
			return h(ctx, req)
		}),
		protorest.WithStreamInterceptors(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if rt, ok := protorest.RouteFromContext(ss.Context()); ok {
				seen.Store(info.FullMethod, rt)
			}
			return h(srv, ss)
		}),
	)
	examplev1.RegisterMySvcServer(inproc, services.NewMySvc())
	libraryv1.RegisterLibraryServiceServer(inproc, services.NewLibrary())
	if err := inproc.HandlePath("GET", "/files/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(r.PathValue("name")))
	}); err != nil {
		t.Fatal(err)
	}
	be := startBackend(t, "tcp", "127.0.0.1:0")
	remote := protorest.NewGateway()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := remote.RegisterRemote(ctx, dial(t, be.addr)); err != nil {
		t.Fatal(err)
	}

	type want struct {
		status             int
		pattern, method    string
		code               codes.Code
		received, sent     int
		interceptorSawThis bool
	}
	cases := []struct {
		name, verb, target, body string
		want
	}{
		{"unary", "POST", "/api/v1/example/upper", `{"msg":"a"}`,
			want{200, "POST /api/v1/example/upper", "/example.v1.MySvc/Upper", codes.OK, 1, 1, true}},
		{"bad body", "POST", "/api/v1/example/upper", `{"msg":`,
			want{400, "POST /api/v1/example/upper", "/example.v1.MySvc/Upper", codes.InvalidArgument, 0, 0, false}},
		{"method error", "GET", "/v1/shelves/none/books/none", "",
			want{404, "GET /v1/{name=shelves/*/books/*}", "/library.v1.LibraryService/GetBook", codes.NotFound, 1, 0, true}},
		{"no route", "GET", "/nowhere", "",
			want{404, "", "", codes.NotFound, 0, 0, false}},
		{"method not allowed", "DELETE", "/api/v1/example/upper", "",
			want{405, "", "", codes.Unimplemented, 0, 0, false}},
		{"server stream", "GET", "/api/v1/example/watch?count=3&intervalMs=10", "",
			want{200, "GET /api/v1/example/watch", "/example.v1.MySvc/Watch", codes.OK, 1, 3, true}},
		{"server stream error", "GET", "/api/v1/example/watch?count=2000", "",
			want{400, "GET /api/v1/example/watch", "/example.v1.MySvc/Watch", codes.InvalidArgument, 1, 0, true}},
		{"bidi stream", "POST", "/api/v1/example/chat", "{\"msg\":\"a\"}\n{\"msg\":\"b\"}\n",
			want{200, "POST /api/v1/example/chat", "/example.v1.MySvc/Chat", codes.OK, 2, 2, true}},
		{"custom route", "GET", "/files/readme", "",
			want{200, "GET /files/{name}", "", codes.OK, 0, 0, false}},
	}
	for _, mode := range []struct {
		name string
		gw   http.Handler
	}{{"in-process", inproc}, {"remote", remote}} {
		obs := &observing{h: mode.gw}
		srv := httptest.NewServer(obs)
		t.Cleanup(srv.Close)
		for _, tt := range cases {
			if mode.name == "remote" && tt.pattern == "GET /files/{name}" {
				continue
			}
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				req, _ := http.NewRequest(tt.verb, srv.URL+tt.target, strings.NewReader(tt.body))
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body := readAll(t, resp)
				if resp.StatusCode != tt.status {
					t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
				}
				ci := obs.take()
				var pattern, method string
				if ci.Route != nil {
					pattern, method = ci.Route.Pattern, ci.Route.FullMethod
				}
				if pattern != tt.pattern || method != tt.method {
					t.Errorf("route %q %q, want %q %q", pattern, method, tt.pattern, tt.method)
				}
				if ci.Code != tt.code || (ci.Err == nil) != (tt.code == codes.OK) {
					t.Errorf("code %v (err %v), want %v", ci.Code, ci.Err, tt.code)
				}
				if ci.MessagesReceived != tt.received || ci.MessagesSent != tt.sent {
					t.Errorf("messages received %d sent %d, want %d and %d", ci.MessagesReceived, ci.MessagesSent, tt.received, tt.sent)
				}
				if mode.name == "in-process" && tt.interceptorSawThis {
					rt, _ := seen.Load(tt.method)
					if rt != ci.Route {
						t.Errorf("the interceptor's RouteFromContext: %v, want %v", rt, ci.Route)
					}
				}
			})
		}
	}
}

// TestRouteFromContextWithoutCallInfo: an in-process method finds its
// route in its context with no middleware at all.
func TestRouteFromContextWithoutCallInfo(t *testing.T) {
	t.Parallel()
	var got *protorest.Route
	gw := protorest.NewGateway(protorest.WithUnaryInterceptors(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		got, _ = protorest.RouteFromContext(ctx)
		return h(ctx, req)
	}))
	examplev1.RegisterMySvcServer(gw, services.NewMySvc())
	w := httptest.NewRecorder()
	gw.ServeHTTP(w, httptest.NewRequest("POST", "/api/v1/example/upper", strings.NewReader(`{"msg":"a"}`)))
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if got == nil || got.Template != "/api/v1/example/upper" || got.Method != "POST" || got.FullMethod != "/example.v1.MySvc/Upper" || got.ClientStreams || got.ServerStreams {
		t.Fatalf("route %+v", got)
	}
	if _, ok := protorest.RouteFromContext(context.Background()); ok {
		t.Fatal("a route in the background context")
	}
}

// traceHeaders are a W3C trace context as a browser or a proxy sends it,
// with client headers that try to add to it through Grpc-Metadata-*.
var traceHeaders = []string{
	"Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	"Tracestate", "congo=t61rcWkgMzE",
	"Baggage", "userId=alice",
	"Grpc-Metadata-Traceparent", "00-11111111111111111111111111111111-2222222222222222-01",
	"Grpc-Metadata-Baggage", "userId=mallory",
}

// wantTrace is the metadata a method must see for traceHeaders: each
// header's value under its own name, once, and nothing a client made.
var wantTrace = map[string][]string{
	"traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
	"tracestate":  {"congo=t61rcWkgMzE"},
	"baggage":     {"userId=alice"},
}

// TestTraceContextForwarded: traceparent, tracestate and baggage reach
// the method as metadata of the same names, with no tracer wired
// (grpc-gateway drops them: grpc-gateway#2228), in-process and remote;
// a client cannot add a second value through Grpc-Metadata-*.
func TestTraceContextForwarded(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, md map[string][]string) {
		t.Helper()
		for k, want := range wantTrace {
			if got := md[k]; !slices.Equal(got, want) {
				t.Errorf("%s = %q, want %q", k, got, want)
			}
		}
	}
	t.Run("in-process", func(t *testing.T) {
		t.Parallel()
		rec := &recorder{}
		gw := newFixture(t, "A", rec)
		req := httptest.NewRequest("GET", "/v1/probes/abc", nil)
		for i := 0; i < len(traceHeaders); i += 2 {
			req.Header.Add(traceHeaders[i], traceHeaders[i+1])
		}
		w := httptest.NewRecorder()
		gw.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		check(t, rec.last(t).md)
	})
	t.Run("remote", func(t *testing.T) {
		t.Parallel()
		be := startBackend(t, "tcp", "127.0.0.1:0")
		srv := remoteGateway(t, dial(t, be.addr))
		resp, body := send(t, "GET", srv.URL+"/v1/shelves", "", traceHeaders...)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		be.mu.Lock()
		md := be.md
		be.mu.Unlock()
		check(t, md)
	})
}
