package protorest_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

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
