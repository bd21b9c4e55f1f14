package protorest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	"github.com/protorest/protorest/examples/services"
)

type tagKey struct{}

// statsRecorder is a stats.Handler that records the events of each call
// by name, and checks that each comes with the context TagRPC made.
type statsRecorder struct {
	mu     sync.Mutex
	events []string
	ends   []*stats.End
	bad    []string
}

func (s *statsRecorder) TagRPC(ctx context.Context, info *stats.RPCTagInfo) context.Context {
	s.add("Tag " + info.FullMethodName)
	return context.WithValue(ctx, tagKey{}, info.FullMethodName)
}

func (s *statsRecorder) HandleRPC(ctx context.Context, rs stats.RPCStats) {
	name := strings.TrimPrefix(fmt.Sprintf("%T", rs), "*stats.")
	if ctx.Value(tagKey{}) == nil {
		s.mu.Lock()
		s.bad = append(s.bad, name+" without TagRPC's context")
		s.mu.Unlock()
	}
	if rs.IsClient() {
		s.add(name + " (client!)")
		return
	}
	switch rs := rs.(type) {
	case *stats.InHeader:
		name += " " + rs.FullMethod
		if rs.RemoteAddr == nil || len(rs.Header.Get("x-forwarded-for")) == 0 {
			name += " (no peer or metadata)"
		}
	case *stats.Begin:
		name += fmt.Sprintf(" client-stream=%v server-stream=%v", rs.IsClientStream, rs.IsServerStream)
	case *stats.InPayload:
		name += fmt.Sprintf(" %d", rs.Length)
	case *stats.OutPayload:
		name += fmt.Sprintf(" %d", rs.Length)
	case *stats.End:
		s.mu.Lock()
		s.ends = append(s.ends, rs)
		s.mu.Unlock()
		name += " " + status.Code(rs.Error).String()
	}
	s.add(name)
}

func (s *statsRecorder) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}
func (s *statsRecorder) HandleConn(context.Context, stats.ConnStats) {}

func (s *statsRecorder) add(e string) {
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
}

func (s *statsRecorder) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.events
	s.events = nil
	return e
}

// TestStatsHandler: WithStatsHandler reports in-process calls as a
// grpc.Server reports its calls, in its order, with the context TagRPC
// made reaching the interceptors and the method.
func TestStatsHandler(t *testing.T) {
	t.Parallel()
	rec := &statsRecorder{}
	var interceptorSaw, streamInterceptorSaw sync.Map
	gw := protorest.NewGateway(
		protorest.WithStatsHandler(rec),
		protorest.WithUnaryInterceptors(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			interceptorSaw.Store(info.FullMethod, ctx.Value(tagKey{}))
			return h(ctx, req)
		}),
		protorest.WithStreamInterceptors(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			streamInterceptorSaw.Store(info.FullMethod, ss.Context().Value(tagKey{}))
			return h(srv, ss)
		}),
	)
	examplev1.RegisterMySvcServer(gw, services.NewMySvc())
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)

	for _, tt := range []struct {
		name, method, target, body string
		status                     int
		want                       []string
	}{
		{"unary", "POST", "/api/v1/example/upper", `{"msg":"hello"}`, 200, []string{
			"Tag /example.v1.MySvc/Upper",
			"InHeader /example.v1.MySvc/Upper",
			"Begin client-stream=false server-stream=false",
			"InPayload 7",
			"OutHeader",
			"OutPayload 7",
			"OutTrailer",
			"End OK",
		}},
		{"unary error before the call", "POST", "/api/v1/example/upper", `{"msg":`, 400, []string{
			"Tag /example.v1.MySvc/Upper",
			"InHeader /example.v1.MySvc/Upper",
			"Begin client-stream=false server-stream=false",
			"OutHeader",
			"OutTrailer",
			"End InvalidArgument",
		}},
		{"server stream", "GET", "/api/v1/example/watch?count=2&intervalMs=10", "", 200, []string{
			"Tag /example.v1.MySvc/Watch",
			"InHeader /example.v1.MySvc/Watch",
			"Begin client-stream=false server-stream=true",
			"InPayload 4",
			"OutHeader",
			"OutPayload *",
			"OutPayload *",
			"OutTrailer",
			"End OK",
		}},
		{"server stream error", "GET", "/api/v1/example/watch?count=2000", "", 400, []string{
			"Tag /example.v1.MySvc/Watch",
			"InHeader /example.v1.MySvc/Watch",
			"Begin client-stream=false server-stream=true",
			"InPayload 3",
			"OutHeader",
			"OutTrailer",
			"End InvalidArgument",
		}},
		{"bidi stream", "POST", "/api/v1/example/chat", "{\"msg\":\"a\"}\n{\"msg\":\"bc\"}\n", 200, []string{
			"Tag /example.v1.MySvc/Chat",
			"InHeader /example.v1.MySvc/Chat",
			"Begin client-stream=true server-stream=true",
			"InPayload 3",
			"OutHeader",
			"OutPayload 3",
			"InPayload 4",
			"OutPayload 4",
			"OutTrailer",
			"End OK",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec.take()
			req, _ := http.NewRequest(tt.method, srv.URL+tt.target, strings.NewReader(tt.body))
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			got := rec.take()
			if len(got) != len(tt.want) {
				t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			for i := range got {
				if w, ok := strings.CutSuffix(tt.want[i], "*"); ok && strings.HasPrefix(got[i], w) || got[i] == tt.want[i] {
					continue
				}
				t.Fatalf("event %d = %q, want %q; all:\n%s", i, got[i], tt.want[i], strings.Join(got, "\n"))
			}
		})
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.bad) > 0 {
		t.Errorf("events without TagRPC's context: %q", rec.bad)
	}
	for _, m := range []string{"/example.v1.MySvc/Upper"} {
		if v, _ := interceptorSaw.Load(m); v != m {
			t.Errorf("the unary interceptor of %s saw tag %v", m, v)
		}
	}
	for _, m := range []string{"/example.v1.MySvc/Watch", "/example.v1.MySvc/Chat"} {
		if v, _ := streamInterceptorSaw.Load(m); v != m {
			t.Errorf("the stream interceptor of %s saw tag %v", m, v)
		}
	}
	for _, e := range rec.ends {
		if e.BeginTime.IsZero() || e.EndTime.Before(e.BeginTime) {
			t.Errorf("End %v → %v", e.BeginTime, e.EndTime)
		}
	}
}
