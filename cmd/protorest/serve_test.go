package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	bookstorev1 "github.com/protorest/protorest/examples/bookstore/v1"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	"github.com/protorest/protorest/examples/services"
	"github.com/protorest/protorest/internal/descsource/descsourcetest"
)

// serveGRPC serves srv on a loopback port until the test ends and
// returns its address.
func serveGRPC(t *testing.T, srv *grpc.Server) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

func startUpstream(t *testing.T, withReflection bool) string {
	t.Helper()
	srv := grpc.NewServer()
	examplev1.RegisterMySvcServer(srv, services.NewMySvc())
	if withReflection {
		reflection.Register(srv)
	}
	return serveGRPC(t, srv)
}

// waitFor polls w until re matches, and returns the first group.
func waitFor(t *testing.T, w *syncBuffer, re *regexp.Regexp) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(w.String()); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no %v in output %q", re, w.String())
	return ""
}

func TestServe(t *testing.T) {
	t.Parallel()
	upstream := startUpstream(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"serve", "--upstream", upstream, "--listen", "127.0.0.1:0", "--proto-names"}, &stdout, &stderr)
	}()
	addr := waitFor(t, &stdout, regexp.MustCompile(`HTTP/JSON on (\S+)`))
	resp, err := http.Post("http://"+addr+"/api/v1/example/upper", "application/json", strings.NewReader(`{"msg":"hello"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"msg":"HELLO"}` {
		t.Errorf("upper: %d %s", resp.StatusCode, body)
	}
	cancel()
	waitExit(t, done, &stderr, "serve")
}

func TestServeErrors(t *testing.T) {
	t.Parallel()
	noReflection := startUpstream(t, false)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no upstream", []string{"serve"}, 2, "--upstream is required"},
		{"bad unescape", []string{"serve", "--upstream", "x:1", "--unescape", "some"}, 2, `invalid value "some" for flag -unescape: want all-except-slash, all-except-reserved or all`},
		{"listen is upstream", []string{"serve", "--upstream", "localhost:7070", "--listen", ":7070"}, 2, "serve would call itself"},
		{"no reflection", []string{"serve", "--upstream", noReflection, "--load-timeout", "5s"}, 1, "reflection"},
		{"missing descriptor set", []string{"serve", "--upstream", noReflection, "--descriptor-set", "/nonexistent.binpb"}, 1, "/nonexistent.binpb"},
		{"unknown service", []string{"serve", "--upstream", startUpstream(t, true), "--service", "no.Such"}, 1, `"no.Such"`},
		{"unknown method for a status", []string{"serve", "--upstream", startUpstream(t, true), "--success-status", "example.v1.MySvc/Nope=201"}, 1, "Nope"},
		{"missing certificate", []string{"serve", "--upstream", "x:1", "--tls-cert", "/nonexistent.pem", "--tls-key", "/nonexistent.key"}, 1, "/nonexistent.pem"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr syncBuffer
			code := run(context.Background(), tt.args, &stdout, &stderr)
			out := stderr.String()
			if code != tt.code || !strings.Contains(out, tt.want) || !strings.HasPrefix(out, "protorest serve: ") || strings.Count(strings.TrimSpace(out), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want %d and one line containing %q", code, out, tt.code, tt.want)
			}
		})
	}
}

// upstreamAt serves MySvc (and with books, BookService) with reflection
// and health on addr, until stop.
func upstreamAt(t *testing.T, addr string, books bool) (stop func()) {
	t.Helper()
	var lis net.Listener
	var err error
	for range 50 { // the port may linger after a previous server
		if lis, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	examplev1.RegisterMySvcServer(srv, services.NewMySvc())
	if books {
		bookstorev1.RegisterBookServiceServer(srv, services.NewBookService())
	}
	testgrpc.RegisterTestServiceServer(srv, unaryEcho{})
	reflection.Register(srv)
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return srv.Stop
}

// unaryEcho is a service with no google.api.http rules.
type unaryEcho struct {
	testgrpc.UnimplementedTestServiceServer
}

func (unaryEcho) UnaryCall(_ context.Context, req *testgrpc.SimpleRequest) (*testgrpc.SimpleResponse, error) {
	return &testgrpc.SimpleResponse{Payload: req.GetPayload()}, nil
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	return lis.Addr().String()
}

// served is a running "protorest serve".
type served struct {
	url            string
	stdout, stderr *syncBuffer
	client         *http.Client // nil: http.DefaultClient
	stop           func(t *testing.T)
}

// startServe runs "protorest serve args... --listen 127.0.0.1:0" until
// the test ends or calls s.stop, and checks that it then exits 0.
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{stdout: new(syncBuffer), stderr: new(syncBuffer)}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...), s.stdout, s.stderr)
	}()
	var once sync.Once
	s.stop = func(t *testing.T) {
		once.Do(func() {
			cancel()
			select {
			case code := <-done:
				if code != 0 {
					t.Errorf("serve exited %d: %s", code, s.stderr.String())
				}
			case <-time.After(10 * time.Second):
				t.Error("serve did not stop")
			}
		})
	}
	t.Cleanup(func() { s.stop(t) })
	s.url = "http://" + waitFor(t, s.stdout, regexp.MustCompile(`HTTP/JSON on (\S+)`))
	if strings.Contains(s.stdout.String(), "(https)") {
		s.url = "https" + strings.TrimPrefix(s.url, "http")
	}
	return s
}

func (s *served) do(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	client := s.client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// eventually polls until check passes, for at most limit.
func eventually(t *testing.T, limit time.Duration, what string, check func() (bool, string)) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		ok, last := check()
		if ok {
			return time.Since(start)
		}
		if time.Since(start) > limit {
			t.Fatalf("%s: not within %v; last: %s", what, limit, last)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestServeStartsBeforeUpstream(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	s := startServe(t, "--upstream", addr)
	if code, body := s.do(t, "POST", "/api/v1/example/upper", `{"msg":"x"}`); code != 503 || !strings.Contains(body, `"code":14`) {
		t.Errorf("before the upstream is up: %d %s", code, body)
	}
	if code, body := s.do(t, "GET", "/healthz", ""); code != 503 || !strings.Contains(body, `"routes":"waiting"`) || !strings.Contains(body, `"health":"UNAVAILABLE"`) {
		t.Errorf("health before the upstream is up: %d %s", code, body)
	}
	if !strings.Contains(s.stderr.String(), "waiting for the upstream") {
		t.Errorf("no log of what it waits for: %s", s.stderr.String())
	}

	upstreamAt(t, addr, false)
	took := eventually(t, 5*time.Second, "routes after the upstream started", func() (bool, string) {
		code, body := s.do(t, "POST", "/api/v1/example/upper", `{"msg":"x"}`)
		return code == 200 && body == `{"msg":"X"}`, body
	})
	t.Logf("served %v after the upstream started", took)
	code, body := s.do(t, "GET", "/healthz", "")
	if code != 200 || body != `{"status":"SERVING","connectivity":"READY","health":"SERVING","routes":"loaded"}`+"\n" {
		t.Errorf("health: %d %s", code, body)
	}
}

func TestServeReloadsWhenUpstreamRestarts(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	stop := upstreamAt(t, addr, false)
	s := startServe(t, "--upstream", addr)
	if code, _ := s.do(t, "GET", "/v1/books/dune", ""); code != 404 {
		t.Fatalf("books before the restart: %d", code)
	}
	stop()
	restarted := time.Now()
	upstreamAt(t, addr, true) // the new version also serves books
	eventually(t, 5*time.Second, "the new service after the restart", func() (bool, string) {
		code, body := s.do(t, "GET", "/v1/books/dune", "")
		return code == 200, body
	})
	t.Logf("new routes %v after the restart", time.Since(restarted))
	if code, body := s.do(t, "POST", "/api/v1/example/upper", `{"msg":"x"}`); code != 200 {
		t.Errorf("the old service after the restart: %d %s", code, body)
	}
}

func TestServeReloadsOnSignalAndInterval(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	upstreamAt(t, addr, true)
	dir := t.TempDir()
	set := filepath.Join(dir, "set.binpb")
	descsourcetest.WriteSet(t, set, examplev1.File_examples_example_v1_example_proto)

	hup := startServe(t, "--upstream", addr, "--descriptor-set", set)
	ticking := startServe(t, "--upstream", addr, "--descriptor-set", set, "--reload-interval", "50ms")
	for _, s := range []*served{hup, ticking} {
		if code, _ := s.do(t, "GET", "/v1/books/dune", ""); code != 404 {
			t.Fatalf("books before the reload: %d", code)
		}
	}
	descsourcetest.WriteSet(t, set, examplev1.File_examples_example_v1_example_proto, bookstorev1.File_examples_bookstore_v1_bookstore_proto)
	eventually(t, 5*time.Second, "reload on the interval", func() (bool, string) {
		code, body := ticking.do(t, "GET", "/v1/books/dune", "")
		return code == 200, body
	})
	if code, _ := hup.do(t, "GET", "/v1/books/dune", ""); code != 404 {
		t.Fatalf("reloaded with neither a signal nor an interval: %d", code)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "reload on SIGHUP", func() (bool, string) {
		code, body := hup.do(t, "GET", "/v1/books/dune", "")
		return code == 200, body
	})
	if !strings.Contains(hup.stderr.String(), "reason=SIGHUP") {
		t.Errorf("the reload is not logged: %s", hup.stderr.String())
	}
}

func TestServeSamePortGRPC(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	upstreamAt(t, addr, false)
	s := startServe(t, "--upstream", addr, "--auto-map")
	conn, err := grpc.NewClient(strings.TrimPrefix(s.url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	resp, err := examplev1.NewMySvcClient(conn).Upper(context.Background(), &examplev1.UpperRequest{Msg: "grpc"})
	if err != nil || resp.GetMsg() != "GRPC" {
		t.Errorf("gRPC on the HTTP port: %v %v", resp, err)
	}
	// A compressed call (grpc-encoding: gzip) passes through as it is:
	// the gateway's Content-Encoding decoding is not in its way.
	resp, err = examplev1.NewMySvcClient(conn).Upper(context.Background(), &examplev1.UpperRequest{Msg: "zipped"}, grpc.UseCompressor(gzip.Name))
	if err != nil || resp.GetMsg() != "ZIPPED" {
		t.Errorf("gzip-compressed gRPC on the HTTP port: %v %v", resp, err)
	}
	// An auto-mapped REST route shares the gRPC path: the content type
	// tells them apart.
	if code, body := s.do(t, "POST", "/grpc.testing.TestService/UnaryCall", `{"payload":{"body":"aGk="}}`); code != 200 || !strings.Contains(body, `"body":"aGk="`) {
		t.Errorf("auto-mapped method: %d %s", code, body)
	}
	// REST over h2c on the same port.
	h2c := &http.Client{Transport: &http.Transport{Protocols: new(http.Protocols)}}
	h2c.Transport.(*http.Transport).Protocols.SetUnencryptedHTTP2(true)
	r, err := h2c.Post(s.url+"/api/v1/example/upper", "application/json", strings.NewReader(`{"msg":"h2c"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.ProtoMajor != 2 || string(body) != `{"msg":"H2C"}` {
		t.Errorf("REST over h2c: %s %s", r.Proto, body)
	}
}

func TestServeProtoFiles(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	upstreamAt(t, addr, false)
	// Relative to the import path, and relative to the working directory.
	for _, file := range []string{"examples/example/v1/example.proto", "../../examples/example/v1/example.proto"} {
		s := startServe(t, "--upstream", addr, "--import-path", "../..", "--proto", file)
		if code, body := s.do(t, "POST", "/api/v1/example/upper", `{"msg":"p"}`); code != 200 || body != `{"msg":"P"}` {
			t.Errorf("--proto %s: %d %s", file, code, body)
		}
	}
}

// TestServeProtoFilesGoogleAPIs: --proto compiles a file that imports
// googleapis files (google/api/visibility.proto, field_behavior.proto,
// resource.proto, client.proto, google/rpc/status.proto,
// google/type/date.proto) with no import path for them.
func TestServeProtoFilesGoogleAPIs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	descsourcetest.WriteGoogleAPIsProto(t, dir)
	s := startServe(t, "--upstream", descsourcetest.ServeEcho(t), "--import-path", dir, "--proto", descsourcetest.GoogleAPIsFile)
	code, body := s.do(t, "GET", "/v1/events/e1?day.year=2026&day.month=11&day.day=27", "")
	if want := `{"name":"events/e1","day":{"year":2026,"month":11,"day":27},"status":null,"note":""}`; code != 200 || body != want {
		t.Errorf("GET /v1/events/e1: %d %s, want 200 %s", code, body, want)
	}
}

// TestServeBadDescriptors checks that what cannot be served stops serve
// before it listens, with one line naming the file, method and rule.
func TestServeBadDescriptors(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	upstreamAt(t, addr, false)
	dir := t.TempDir()
	write := func(name, rules string) {
		src := `syntax = "proto3";
package bad.v1;
import "google/api/annotations.proto";
message Req { string name = 1; }
service Svc {
` + rules + `
}
`
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("syntax.proto", `rpc Get(Req) returns (Req) { option (google.api.http) = { get: "/v1/{name" }; }`)
	write("field.proto", `rpc Get(Req) returns (Req) { option (google.api.http) = { get: "/v1/{nmae}" }; }`)
	write("conflict.proto", `rpc Get(Req) returns (Req) { option (google.api.http) = { get: "/v1/{name}" }; }
rpc Other(Req) returns (Req) { option (google.api.http) = { get: "/v1/{name}" }; }`)
	write("compile.proto", `rpc Get(Missing) returns (Req);`)
	write("health.proto", `rpc Get(Req) returns (Req) { option (google.api.http) = { get: "/healthz" }; }`)
	tests := []struct {
		file string
		want []string
	}{
		{"syntax.proto", []string{"syntax.proto", "bad.v1.Svc.Get", `get "/v1/{name"`, "column"}},
		{"field.proto", []string{"field.proto", "bad.v1.Svc.Get", `get "/v1/{nmae}"`, "nmae"}},
		{"conflict.proto", []string{"conflict.proto", "bad.v1.Svc.Get", "bad.v1.Svc.Other", "/v1/{name}"}},
		{"compile.proto", []string{"compile.proto:6:9", "Missing"}},
		{"health.proto", []string{"bad.v1.Svc.Get", "/healthz"}},
	}
	for _, tt := range tests {
		var stdout, stderr syncBuffer
		code := run(context.Background(), []string{"serve", "--upstream", addr, "--listen", "127.0.0.1:0", "--import-path", dir, "--proto", tt.file}, &stdout, &stderr)
		out := stderr.String()
		if code != 1 || strings.Count(strings.TrimSpace(out), "\n") != 0 || stdout.String() != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and one line", tt.file, code, stdout.String(), out)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: %q does not name %q", tt.file, out, w)
			}
		}
	}
}

// TestServeUpstreamUnreachable: with routes from a .proto file and
// nothing at the upstream's address, a REST call and a gRPC call on the
// same port get UNAVAILABLE "upstream unavailable", which does not name
// the address; the access log has grpc-go's cause.
func TestServeUpstreamUnreachable(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	s := startServe(t, "--upstream", addr, "--import-path", "../..", "--proto", "examples/example/v1/example.proto", "--log-format", "json")
	const want = `{"code":14,"message":"upstream unavailable","details":[]}`
	if code, body := s.do(t, "POST", "/api/v1/example/upper", `{"msg":"x"}`); code != 503 || body != want {
		t.Errorf("REST: %d %s, want 503 %s", code, body, want)
	}
	conn, err := grpc.NewClient(strings.TrimPrefix(s.url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = examplev1.NewMySvcClient(conn).Upper(context.Background(), &examplev1.UpperRequest{Msg: "grpc"})
	if st := status.Convert(err); st.Code() != codes.Unavailable || st.Message() != "upstream unavailable" {
		t.Errorf("gRPC: %v", err)
	}
	lines := accessLines(t, s)
	if len(lines) != 2 || lines[0]["level"] != "ERROR" {
		t.Fatalf("access log lines %v, want 2, the REST call's an error (503)", lines)
	}
	for _, l := range lines {
		msg, _ := l["error.message"].(string)
		if !strings.HasPrefix(msg, "upstream unavailable: ") || !strings.Contains(msg, addr) || l["rpc.response.status_code"] != "UNAVAILABLE" {
			t.Errorf("access log: %v, want grpc-go's cause in error.message", l)
		}
	}
}
