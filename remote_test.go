package protorest_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	"github.com/protorest/protorest/examples/services"
	"github.com/protorest/protorest/internal/descsource/descsourcetest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

func TestRemoteReflection(t *testing.T) {
	t.Parallel()
	be := startBackend(t, "tcp", "127.0.0.1:0")
	gw := remoteGateway(t, dial(t, be.addr))

	resp, body := send(t, "POST", gw.URL+"/api/v1/example/upper", `{"msg":"hello"}`,
		"Grpc-Metadata-Tenant", "t1", "Accept-Language", "fr", "Grpc-Timeout", "5S", "Te", "trailers")
	if resp.StatusCode != 200 || body != `{"msg":"HELLO"}` {
		t.Errorf("upper: %d %s", resp.StatusCode, body)
	}
	if got := resp.Trailer.Get("Grpc-Trailer-X-Backend-Trailer"); got != "t" {
		t.Errorf("backend trailer = %q", got)
	}
	be.mu.Lock()
	md, deadline := be.md, be.deadline
	be.mu.Unlock()
	if md.Get("tenant")[0] != "t1" || md.Get("grpcgateway-accept-language")[0] != "fr" || len(md.Get("x-forwarded-for")) != 1 || !deadline {
		t.Errorf("backend saw metadata %v, deadline %v", md, deadline)
	}

	// An error with details raised by the backend.
	resp, body = send(t, "GET", gw.URL+"/v1/books/", "")
	if resp.StatusCode != 400 || !strings.HasPrefix(body, `{"code":3,"message":"Name argument is required","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest"`) {
		t.Errorf("empty book name: %d %s", resp.StatusCode, body)
	}

	// Backend header metadata, the library's paging, and binary responses.
	resp, body = send(t, "GET", gw.URL+"/v1/shelves?page_size=1", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"nextPageToken":"`) || resp.Header.Get("Grpc-Metadata-"+http.CanonicalHeaderKey(services.RequestIDHeader)) == "" {
		t.Errorf("list shelves: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	resp, body = send(t, "POST", gw.URL+"/api/v1/example/echo", `{"msg":"hi"}`, "Accept", "application/proto")
	var echo examplev1.EchoResponse
	if err := proto.Unmarshal([]byte(body), &echo); err != nil || echo.GetMsg() != "echo: hi" || resp.Header.Get("Content-Type") != "application/proto" {
		t.Errorf("binary echo: %v %q %v", err, echo.GetMsg(), resp.Header)
	}

	// A PATCH without a mask gets one derived from the body, as a dynamic
	// message: only the title changes.
	resp, body = send(t, "PATCH", gw.URL+"/v1/shelves/fiction/books/dune", `{"title":"Dune Messiah"}`)
	if resp.StatusCode != 200 || !strings.Contains(body, `"title":"Dune Messiah"`) || !strings.Contains(body, `"author":"Frank Herbert"`) {
		t.Errorf("patch with a derived mask: %d %s", resp.StatusCode, body)
	}

	// PATCH {}: the derived mask is empty, and nothing changes.
	resp, body = send(t, "PATCH", gw.URL+"/v1/shelves/fiction/books/dune", `{}`)
	if resp.StatusCode != 200 || !strings.Contains(body, `"title":"Dune Messiah"`) || !strings.Contains(body, `"pageCount":412`) {
		t.Errorf("patch of {}: %d %s", resp.StatusCode, body)
	}

	// Routing errors and binding errors are the gateway's own.
	if resp, _ := send(t, "GET", gw.URL+"/api/v1/example/upper", ""); resp.StatusCode != 405 {
		t.Errorf("wrong method: %d", resp.StatusCode)
	}
	if resp, body := send(t, "GET", gw.URL+"/v1/shelves?bogus=1", ""); resp.StatusCode != 400 || !strings.Contains(body, "bogus") {
		t.Errorf("unknown parameter: %d %s", resp.StatusCode, body)
	}
}

func TestRemoteUnixSocket(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(t.TempDir(), "backend.sock")
	be := startBackend(t, "unix", sock)
	gw := remoteGateway(t, dial(t, be.addr))
	if resp, body := send(t, "POST", gw.URL+"/api/v1/example/echo", `{"msg":"unix"}`); resp.StatusCode != 200 || body != `{"msg":"echo: unix"}` {
		t.Errorf("echo over a Unix socket: %d %s", resp.StatusCode, body)
	}
}

func TestRemoteFilesAndServiceFilter(t *testing.T) {
	t.Parallel()
	be := startBackend(t, "tcp", "127.0.0.1:0")
	gw := remoteGateway(t, dial(t, be.addr), protorest.WithRemoteFiles(protoregistry.GlobalFiles, "example.v1.MySvc"))
	if resp, body := send(t, "POST", gw.URL+"/api/v1/example/upper", `{"msg":"x"}`); resp.StatusCode != 200 || body != `{"msg":"X"}` {
		t.Errorf("upper: %d %s", resp.StatusCode, body)
	}
	if resp, _ := send(t, "GET", gw.URL+"/v1/books/x", ""); resp.StatusCode != 404 {
		t.Errorf("a service that was not asked for is served: %d", resp.StatusCode)
	}
}

func TestRemoteBackendDown(t *testing.T) {
	t.Parallel()
	addr := closedAddr(t)
	gw := remoteGateway(t, dial(t, addr), protorest.WithRemoteFiles(protoregistry.GlobalFiles, "example.v1.MySvc"))
	resp, body := send(t, "POST", gw.URL+"/api/v1/example/upper", `{"msg":"x"}`)
	if resp.StatusCode != 503 || !strings.Contains(body, `"code":14`) {
		t.Errorf("backend down: %d %s", resp.StatusCode, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := protorest.NewGateway().RegisterRemote(ctx, dial(t, addr)); err == nil {
		t.Error("reflection against a missing backend succeeded")
	}
}

// TestRemoteRejectsWhatTheBackendWouldFail sends what grpc-go would turn
// into INTERNAL: header values that are not valid metadata (dropped) and
// binary bodies that are not protobuf (400).
func TestRemoteRejectsWhatTheBackendWouldFail(t *testing.T) {
	t.Parallel()
	be := startBackend(t, "tcp", "127.0.0.1:0")
	gw := remoteGateway(t, dial(t, be.addr))

	resp, body := send(t, "POST", gw.URL+"/api/v1/example/echo", `{"msg":"h"}`,
		"Grpc-Metadata-Name", "Jos\xc3\xa9", "Grpc-Metadata-Ok", "fine",
		"X-Forwarded-For", "\xe9\xe9", "X-Forwarded-Host", "h\xc3\xb4st", "User-Agent", "ag\xe9nt")
	if resp.StatusCode != 200 || body != `{"msg":"echo: h"}` {
		t.Errorf("headers that are not metadata: %d %s", resp.StatusCode, body)
	}
	be.mu.Lock()
	md := be.md
	be.mu.Unlock()
	if got := md.Get("ok"); len(got) != 1 || got[0] != "fine" || len(md.Get("name")) != 0 {
		t.Errorf("backend saw %v", md)
	}
	if fwd := md.Get("x-forwarded-for"); len(fwd) != 1 || fwd[0] != "127.0.0.1" {
		t.Errorf("x-forwarded-for = %q, want the peer only", fwd)
	}

	for _, bad := range []string{"\xff", "\x0a\x05ab", "\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "\x0b"} {
		resp, body := send(t, "POST", gw.URL+"/api/v1/example/echo", bad, "Content-Type", "application/proto")
		if resp.StatusCode != 400 || !strings.Contains(body, `"code":3`) {
			t.Errorf("binary body %q: %d %s", bad, resp.StatusCode, body)
		}
	}
}

// blockingService's UnaryCall waits for its context to end and reports it.
type blockingService struct {
	testgrpc.UnimplementedTestServiceServer
	started, canceled chan struct{}
}

func (s blockingService) UnaryCall(ctx context.Context, _ *testgrpc.SimpleRequest) (*testgrpc.SimpleResponse, error) {
	close(s.started)
	<-ctx.Done()
	close(s.canceled)
	return nil, ctx.Err()
}

// TestRemoteClientGoneCancelsBackend: a client that disconnects cancels
// the backend's call. The backend is reached with a dns:/// target.
func TestRemoteClientGoneCancelsBackend(t *testing.T) {
	t.Parallel()
	svc := blockingService{started: make(chan struct{}), canceled: make(chan struct{})}
	backend := grpc.NewServer()
	testgrpc.RegisterTestServiceServer(backend, svc)
	reflection.Register(backend)

	_, port, _ := net.SplitHostPort(serveGRPC(t, backend))
	gw := protorest.NewGateway(protorest.WithAutoMapping())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := gw.RegisterRemote(ctx, dial(t, "dns:///127.0.0.1:"+port)); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)

	reqCtx, give := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(reqCtx, "POST", srv.URL+"/grpc.testing.TestService/UnaryCall", strings.NewReader(`{}`))
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	select {
	case <-svc.started:
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not reach the backend")
	}
	give()
	select {
	case <-svc.canceled:
	case <-time.After(5 * time.Second):
		t.Fatal("the backend's call was not canceled when the client went away")
	}
	if err := <-errc; err == nil {
		t.Error("the client's request succeeded")
	}
}

// TestRemoteSetupFailures: what fails before a remote call is made (a bad
// Grpc-Timeout, a -bin header that is not base64, metadata over its
// limit) is answered with its status, and the backend is not called, for
// unary calls and streams alike.
func TestRemoteSetupFailures(t *testing.T) {
	t.Parallel()
	be := startBackend(t, "tcp", "127.0.0.1:0")
	gw := remoteGateway(t, dial(t, be.addr))
	for _, tt := range []struct {
		name    string
		headers []string
		code    int
		want    string
	}{
		{"Grpc-Timeout", []string{"Grpc-Timeout", "soon"}, 400, `"code":3,"message":"invalid Grpc-Timeout \"soon\""`},
		{"binary header", []string{"Grpc-Metadata-Trace-Bin", "!!"}, 400, `"code":3,"message":"invalid binary header Grpc-Metadata-Trace-Bin: not base64"`},
		{"metadata size", []string{"Grpc-Metadata-Big", strings.Repeat("b", 9000)}, 431, `"code":8`},
	} {
		be.mu.Lock()
		be.md = nil
		be.mu.Unlock()
		resp, body := send(t, "POST", gw.URL+"/api/v1/example/upper", `{"msg":"x"}`, tt.headers...)
		be.mu.Lock()
		called := be.md != nil
		be.mu.Unlock()
		if resp.StatusCode != tt.code || !strings.Contains(body, tt.want) || called {
			t.Errorf("unary, %s: %d %s; backend called: %v", tt.name, resp.StatusCode, body, called)
		}
	}

	urls, streamers := streamGateways(t)
	resp, body := send(t, "GET", urls["remote"]+"/v1/watch/w?i32=3", "", "Grpc-Timeout", "soon")
	if resp.StatusCode != 400 || !strings.Contains(body, `"code":3`) || streamers["remote"].sent.Load() != 0 {
		t.Errorf("stream, Grpc-Timeout: %d %s; the backend sent %d", resp.StatusCode, body, streamers["remote"].sent.Load())
	}
}

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	return lis.Addr().String()
}

// observedGateway serves the conf.v1.Probes methods of the backend at
// target on a loopback h2c server, and returns its URL and the errors
// the gateway recorded in each request's CallInfo, by path.
func observedGateway(t *testing.T, target string) (url string, errs func(path string) error) {
	t.Helper()
	gw := protorest.NewGateway()
	err := gw.RegisterRemote(context.Background(), dial(t, target), protorest.WithRemoteFiles(protoregistry.GlobalFiles, "conf.v1.Probes"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]error{}
	srv := h2cServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ci := new(protorest.CallInfo)
		gw.ServeHTTP(w, r.WithContext(protorest.NewCallInfoContext(r.Context(), ci)))
		mu.Lock()
		seen[r.URL.Path] = ci.Err
		mu.Unlock()
	}))
	return srv.URL, func(path string) error {
		mu.Lock()
		defer mu.Unlock()
		return seen[path]
	}
}

// TestRemoteUnreachable: with nothing listening at the backend's
// address, a unary call, a server stream and a WebSocket get 503
// UNAVAILABLE "upstream unavailable", never grpc-go's message naming the
// address; the CallInfo's error has that message, for the log.
func TestRemoteUnreachable(t *testing.T) {
	t.Parallel()
	addr := closedAddr(t)
	url, errs := observedGateway(t, addr)
	_, port, _ := net.SplitHostPort(addr)
	const want = `{"code":14,"message":"upstream unavailable","details":[]}`
	for _, path := range []string{"/v1/probes/x", "/v1/watch/x"} {
		resp, body := send(t, "GET", url+path, "")
		if resp.StatusCode != 503 || body != want {
			t.Errorf("GET %s: %d %s, want 503 %s", path, resp.StatusCode, body, want)
		}
		err := errs(path)
		if !errors.Is(err, protorest.ErrBackendUnreachable) || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), port) {
			t.Errorf("GET %s: CallInfo.Err %v, want ErrBackendUnreachable with grpc-go's cause", path, err)
		}
	}
	c := wsDial(t, url+"/v1/watch/x", nil)
	wsClosed(t, c, 4000+websocket.StatusCode(codes.Unavailable), "upstream unavailable")
}

// TestRemoteUnavailableFromBackend: an UNAVAILABLE the backend sends
// itself passes through with its own message, unary, streamed and over a
// WebSocket; a stream whose connection breaks after its first message
// ends with "upstream unavailable".
func TestRemoteUnavailableFromBackend(t *testing.T) {
	t.Parallel()
	own := status.Error(codes.Unavailable, "database down")
	rec := &recorder{reply: func(string, proto.Message) (proto.Message, error) { return nil, own }}
	desc := serviceDesc(t, "conf.v1.Probes", rec, "GetProbe", "Watch")
	sent := make(chan struct{}, 1)
	desc.Streams[0].Handler = func(_ any, ss grpc.ServerStream) error {
		in := new(confv1.Probe)
		if err := ss.RecvMsg(in); err != nil {
			return err
		}
		if in.GetName() != "hang" {
			return own
		}
		if err := ss.SendMsg(&confv1.Probe{Name: "first"}); err != nil {
			return err
		}
		sent <- struct{}{}
		<-ss.Context().Done()
		return ss.Context().Err()
	}
	srv := grpc.NewServer()
	srv.RegisterService(desc, nil)
	addr := serveGRPC(t, srv)
	url, errs := observedGateway(t, addr)

	const want = `{"code":14,"message":"database down","details":[]}`
	for _, path := range []string{"/v1/probes/x", "/v1/watch/x"} {
		resp, body := send(t, "GET", url+path, "")
		if resp.StatusCode != 503 || body != want {
			t.Errorf("GET %s: %d %s, want 503 %s", path, resp.StatusCode, body, want)
		}
		if err := errs(path); errors.Is(err, protorest.ErrBackendUnreachable) || status.Convert(err).Message() != "database down" {
			t.Errorf("GET %s: CallInfo.Err %v, want the backend's own", path, err)
		}
	}
	c := wsDial(t, url+"/v1/watch/x", nil)
	wsClosed(t, c, 4000+websocket.StatusCode(codes.Unavailable), "database down")

	resp, err := http.Get(url + "/v1/watch/hang")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), `{"result":{"name":"first",`) {
		t.Fatalf("first message: %q", lines.Text())
	}
	<-sent
	srv.Stop() // the connection breaks under the stream
	var rest []string
	for lines.Scan() {
		rest = append(rest, lines.Text())
	}
	_, port, _ := net.SplitHostPort(addr)
	if len(rest) != 1 || !strings.Contains(rest[0], `"code":14,"message":"upstream unavailable"`) || strings.Contains(rest[0], port) {
		t.Errorf("after the connection broke: %q, want one error record of upstream unavailable", rest)
	}
	if err := errs("/v1/watch/hang"); !errors.Is(err, protorest.ErrBackendUnreachable) {
		t.Errorf("broken stream: CallInfo.Err %v, want ErrBackendUnreachable", err)
	}
}

// TestWithProtoFilesGoogleAPIs: a .proto file that imports googleapis
// files protorest links none of (google/api/visibility.proto,
// field_behavior.proto, resource.proto, client.proto,
// google/rpc/status.proto, google/type/date.proto) compiles through
// WithProtoFiles, with no import path for them, and its method is served.
func TestWithProtoFilesGoogleAPIs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	descsourcetest.WriteGoogleAPIsProto(t, dir)
	gw := protorest.NewGateway()
	opt := protorest.WithProtoFiles([]string{dir}, []string{descsourcetest.GoogleAPIsFile})
	if err := gw.RegisterRemote(t.Context(), dial(t, descsourcetest.ServeEcho(t)), opt); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)
	got := fetch(t, "GET", srv.URL+"/v1/events/e1?day.year=2026&day.month=11&day.day=27", "")
	const want = `{"name":"events/e1","day":{"year":2026,"month":11,"day":27},"status":null,"note":""}`
	if got.code != 200 || got.body != want {
		t.Errorf("GET /v1/events/e1: %d %s, want 200 %s", got.code, got.body, want)
	}
}
