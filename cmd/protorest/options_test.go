package main

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"

	examplev1 "github.com/protorest/protorest/examples/example/v1"
	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	"github.com/protorest/protorest/examples/services"
)

// seenMetadata is the incoming metadata an upstream saw, by method.
type seenMetadata struct {
	mu sync.Mutex
	md map[string]metadata.MD
}

func (s *seenMetadata) record(ctx context.Context, method string) {
	md, _ := metadata.FromIncomingContext(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.md[method] = md
}

func (s *seenMetadata) get(method, key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.md[method].Get(key), ",")
}

// recordingUpstream serves MySvc, reflection and health on a free port,
// records the metadata of every call, sets header metadata x-served-by
// on unary calls, and accepts messages of up to 16 MiB. More server
// options (credentials) may be given.
func recordingUpstream(t *testing.T, opts ...grpc.ServerOption) (addr string, seen *seenMetadata) {
	t.Helper()
	seen = &seenMetadata{md: map[string]metadata.MD{}}
	opts = append(opts,
		grpc.MaxRecvMsgSize(16<<20),
		grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			seen.record(ctx, info.FullMethod)
			grpc.SetHeader(ctx, metadata.Pairs("x-served-by", "up"))
			return handler(ctx, req)
		}),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			seen.record(ss.Context(), info.FullMethod)
			return handler(srv, ss)
		}),
	)
	srv := grpc.NewServer(opts...)
	examplev1.RegisterMySvcServer(srv, services.NewMySvc())
	reflection.Register(srv)
	healthpb.RegisterHealthServer(srv, health.NewServer())
	return serveGRPC(t, srv), seen
}

func TestServeOptionFlags(t *testing.T) {
	t.Parallel()
	addr, seen := recordingUpstream(t)
	s := startServe(t, "--upstream", addr,
		"--upstream-header", "x-api-key:secret", "--upstream-header", "X-Env: test",
		"--incoming-header", "X-Tenant", "--incoming-header", "X-Trace-*",
		"--outgoing-header", "x-served-by",
		"--success-status", "example.v1.MySvc/Upper=201",
		"--max-body-size", "64B", "--max-json-depth", "2", "--strict-trailing-slash")

	req, _ := http.NewRequest("POST", s.url+"/api/v1/example/upper", strings.NewReader(`{"msg":"x"}`))
	req.Header.Set("X-Tenant", "t1")
	req.Header.Set("X-Trace-Id", "abc")
	req.Header.Set("X-Other", "no")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Errorf("--success-status: %d", resp.StatusCode)
	}
	if got := resp.Header.Get("X-Served-By"); got != "up" || resp.Header.Get("Grpc-Metadata-X-Served-By") != "" {
		t.Errorf("--outgoing-header: X-Served-By %q, header %v", got, resp.Header)
	}
	const upper = "/example.v1.MySvc/Upper"
	for key, want := range map[string]string{"x-api-key": "secret", "x-env": "test", "x-tenant": "t1", "x-trace-id": "abc", "x-other": ""} {
		if got := seen.get(upper, key); got != want {
			t.Errorf("upstream saw %s=%q, want %q", key, got, want)
		}
	}
	if got := seen.get("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", "x-api-key"); got != "secret" {
		t.Errorf("reflection without --upstream-header: %q (calls seen: %v)", got, seen.md)
	}
	s.do(t, "GET", "/healthz", "")
	if got := seen.get("/grpc.health.v1.Health/Check", "x-api-key"); got != "secret" {
		t.Errorf("health check without --upstream-header: %q", got)
	}

	if code, body := s.do(t, "POST", "/api/v1/example/upper", `{"msg":"`+strings.Repeat("x", 64)+`"}`); code != 413 {
		t.Errorf("--max-body-size 64B: %d %s", code, body)
	}
	if code, body := s.do(t, "POST", "/api/v1/example/echo", `{"msg":"x","a":[[[1]]]}`); code != 400 || !strings.Contains(body, "depth") {
		t.Errorf("--max-json-depth 2: %d %s", code, body)
	}
	if code, _ := s.do(t, "POST", "/api/v1/example/upper/", `{"msg":"x"}`); code != 404 {
		t.Errorf("--strict-trailing-slash: %d", code)
	}
}

// TestServeLargeResponses checks that a response over grpc-go's 4 MiB
// default is served under --max-response-bytes 8MiB, refused with 500
// "response too large" under the default 4MiB, and that
// --max-upstream-message-size limits it before that, with the same 500
// naming that limit (not grpc-go's RESOURCE_EXHAUSTED, a 429).
func TestServeLargeResponses(t *testing.T) {
	t.Parallel()
	addr, _ := recordingUpstream(t)
	big := `{"msg":"` + strings.Repeat("x", 5<<20) + `"}`
	s := startServe(t, "--upstream", addr, "--max-body-size", "8MiB", "--max-response-bytes", "8MiB")
	if code, body := s.do(t, "POST", "/api/v1/example/echo", big); code != 200 || len(body) < 5<<20 {
		t.Errorf("a 5MiB response: %d, %d bytes", code, len(body))
	}
	capped := startServe(t, "--upstream", addr, "--max-body-size", "8MiB")
	if code, body := capped.do(t, "POST", "/api/v1/example/echo", big); code != 500 ||
		body != `{"code":13,"message":"response too large: larger than the limit of 4 MiB","details":[]}` {
		t.Errorf("a 5MiB response under the default --max-response-bytes: %d %.200s", code, body)
	}
	small := startServe(t, "--upstream", addr, "--max-body-size", "8MiB", "--max-response-bytes", "8MiB", "--max-upstream-message-size", "4MiB")
	if code, body := small.do(t, "POST", "/api/v1/example/echo", big); code != 500 ||
		body != `{"code":13,"message":"response too large: larger than the limit of 4 MiB","details":[]}` {
		t.Errorf("a 5MiB response under --max-upstream-message-size 4MiB: %d %.200s", code, body)
	}
}

// TestServeEncodedSlashFallback: serve routes a path whose slashes a
// client escaped as grpc-gateway does, unless --encoded-slash-fallback=false
// (or its variable) keeps %2F as data.
func TestServeEncodedSlashFallback(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer()
	libraryv1.RegisterLibraryServiceServer(srv, services.NewLibrary())
	reflection.Register(srv)
	upstream := serveGRPC(t, srv)
	const escaped = "/v1/shelves%2Ffiction%2Fbooks%2Fdune"

	on := startServe(t, "--upstream", upstream, "--access-log=false")
	if code, body := on.do(t, "GET", escaped, ""); code != 200 || !strings.Contains(body, `"name":"shelves/fiction/books/dune"`) {
		t.Errorf("GET %s: %d %s", escaped, code, body)
	}
	off := startServe(t, "--upstream", upstream, "--access-log=false", "--encoded-slash-fallback=false")
	if code, body := off.do(t, "GET", escaped, ""); code != 404 || !strings.Contains(body, `"code":5`) {
		t.Errorf("--encoded-slash-fallback=false: GET %s: %d %s", escaped, code, body)
	}
}
