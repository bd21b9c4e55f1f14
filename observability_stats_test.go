package protorest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	"github.com/protorest/protorest/examples/services"
)

type tagKey struct{}

// eventLog is the events a stats.Handler of the tests describes, and
// the connection half of stats.Handler, which they do not watch.
type eventLog struct {
	mu     sync.Mutex
	events []string
}

func (l *eventLog) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}
func (l *eventLog) HandleConn(context.Context, stats.ConnStats) {}

func (l *eventLog) add(e string) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

// take returns the events since the last take.
func (l *eventLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.events
	l.events = nil
	return e
}

// statsRecorder is a stats.Handler that records the events of each call
// by name, and checks that each comes with the context TagRPC made.
type statsRecorder struct {
	eventLog // its mu also guards ends and bad
	ends     []*stats.End
	bad      []string
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

// payloadRecorder is a stats.Handler that describes the payload events
// of the server side of calls: the message's type, and its Length,
// CompressedLength and WireLength as differences from its proto size, so
// that calls whose messages carry the time compare alike.
type payloadRecorder struct {
	eventLog
	ends chan struct{} // a value per End, which follows a call's payloads
}

func newPayloadRecorder() *payloadRecorder {
	return &payloadRecorder{ends: make(chan struct{}, 1)}
}

func (p *payloadRecorder) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	return ctx
}

func (p *payloadRecorder) HandleRPC(_ context.Context, rs stats.RPCStats) {
	var e string
	switch rs := rs.(type) {
	case *stats.InPayload:
		e = describePayload("InPayload", rs.Client, rs.Payload, rs.Length, rs.CompressedLength, rs.WireLength)
	case *stats.OutPayload:
		e = describePayload("OutPayload", rs.Client, rs.Payload, rs.Length, rs.CompressedLength, rs.WireLength)
	case *stats.End:
		p.ends <- struct{}{}
		return
	default:
		return
	}
	p.add(e)
}

func describePayload(event string, client bool, payload any, length, compressed, wire int) string {
	msg, ok := payload.(proto.Message)
	if !ok {
		return fmt.Sprintf("%s Payload %T, not a message", event, payload)
	}
	n := proto.Size(msg)
	return fmt.Sprintf("%s client=%v %T Length=size%+d CompressedLength=size%+d WireLength=size%+d", event, client, payload, length-n, compressed-n, wire-n)
}

// callEvents waits for the End of the call in progress, and returns the
// events since the last take.
func (p *payloadRecorder) callEvents(t *testing.T) []string {
	t.Helper()
	select {
	case <-p.ends:
	case <-time.After(10 * time.Second):
		t.Fatal("no End event")
	}
	return p.take()
}

// TestStatsHandlerPayloads: the InPayload and OutPayload events
// WithStatsHandler reports of in-process calls carry what a grpc.Server
// reports of the same calls, uncompressed: the message, its size as
// Length and CompressedLength, and the size plus the 5 bytes of gRPC's
// message header as WireLength.
func TestStatsHandlerPayloads(t *testing.T) {
	t.Parallel()
	grpcRec, gwRec := newPayloadRecorder(), newPayloadRecorder()

	srv := grpc.NewServer(grpc.StatsHandler(grpcRec))
	examplev1.RegisterMySvcServer(srv, services.NewMySvc())
	conn, err := grpc.NewClient(serveGRPC(t, srv), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	client := examplev1.NewMySvcClient(conn)

	gw := protorest.NewGateway(protorest.WithStatsHandler(gwRec))
	examplev1.RegisterMySvcServer(gw, services.NewMySvc())
	web := httptest.NewServer(gw)
	t.Cleanup(web.Close)

	for _, tt := range []struct {
		name                 string
		grpcCall             func(context.Context) error
		method, target, body string
	}{
		{
			name: "unary",
			grpcCall: func(ctx context.Context) error {
				_, err := client.Upper(ctx, &examplev1.UpperRequest{Msg: "hello"})
				return err
			},
			method: "POST", target: "/api/v1/example/upper", body: `{"msg":"hello"}`,
		},
		{
			name: "server stream",
			grpcCall: func(ctx context.Context) error {
				stream, err := client.Watch(ctx, &examplev1.WatchRequest{Count: 2, IntervalMs: 10})
				if err != nil {
					return err
				}
				for {
					if _, err := stream.Recv(); err != nil {
						return ignoreEOF(err)
					}
				}
			},
			method: "GET", target: "/api/v1/example/watch?count=2&intervalMs=10",
		},
		{
			name: "bidi stream",
			grpcCall: func(ctx context.Context) error {
				stream, err := client.Chat(ctx)
				if err != nil {
					return err
				}
				for _, m := range []string{"a", "bc"} {
					if err := stream.Send(&examplev1.ChatMessage{Msg: m}); err != nil {
						return err
					}
					if _, err := stream.Recv(); err != nil {
						return err
					}
				}
				if err := stream.CloseSend(); err != nil {
					return err
				}
				_, err = stream.Recv()
				return ignoreEOF(err)
			},
			method: "POST", target: "/api/v1/example/chat", body: "{\"msg\":\"a\"}\n{\"msg\":\"bc\"}\n",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.grpcCall(t.Context()); err != nil {
				t.Fatalf("gRPC call: %v", err)
			}
			want := grpcRec.callEvents(t)
			req, err := http.NewRequestWithContext(t.Context(), tt.method, web.URL+tt.target, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := web.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if body := readAll(t, resp); resp.StatusCode != http.StatusOK {
				t.Fatalf("%s %s: %d %s", tt.method, tt.target, resp.StatusCode, body)
			}
			got := gwRec.callEvents(t)
			if !slices.Equal(got, want) {
				t.Errorf("the gateway reported\n%s\na grpc.Server\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// ignoreEOF is err, or nil for io.EOF: the end of a stream that succeeded.
func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}
