package protorest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/reflection"

	"github.com/protorest/protorest"
	bookstorev1 "github.com/protorest/protorest/examples/bookstore/v1"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	"github.com/protorest/protorest/examples/services"
	"github.com/protorest/protorest/internal/descsource/descsourcetest"
)

func TestReloadSwapsRoutesFromDescriptorSet(t *testing.T) {
	t.Parallel()
	be := startBackend(t, "tcp", "127.0.0.1:0")
	path := filepath.Join(t.TempDir(), "backend.binpb")
	descsourcetest.WriteSet(t, path, examplev1.File_examples_example_v1_example_proto)

	gw := protorest.NewGateway()
	gw.HandlePath("GET", "/v1/books/special", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("custom"))
	})
	ctx := context.Background()
	if err := gw.RegisterRemote(ctx, dial(t, be.addr), protorest.WithDescriptorSetFile(path)); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)

	if resp, body := send(t, "POST", srv.URL+"/api/v1/example/echo", `{"msg":"a"}`); resp.StatusCode != 200 {
		t.Fatalf("echo before reload: %d %s", resp.StatusCode, body)
	}
	if resp, _ := send(t, "GET", srv.URL+"/v1/books/dune", ""); resp.StatusCode != 404 {
		t.Fatalf("book before reload: %d, want 404", resp.StatusCode)
	}

	// The backend now serves books instead of the example service.
	descsourcetest.WriteSet(t, path, bookstorev1.File_examples_bookstore_v1_bookstore_proto)
	if err := gw.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if resp, body := send(t, "GET", srv.URL+"/v1/books/dune", ""); resp.StatusCode != 200 || !strings.Contains(body, `"name":"dune"`) {
		t.Errorf("book after reload: %d %s", resp.StatusCode, body)
	}
	if resp, _ := send(t, "POST", srv.URL+"/api/v1/example/echo", `{"msg":"a"}`); resp.StatusCode != 404 {
		t.Errorf("echo after its service went away: %d, want 404", resp.StatusCode)
	}
	if resp, body := send(t, "GET", srv.URL+"/v1/books/special", ""); body != "custom" {
		t.Errorf("custom route after reload: %d %s", resp.StatusCode, body)
	}

	// A reload that fails keeps the routes it would have replaced.
	if err := os.WriteFile(path, []byte("not a descriptor set"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := gw.Reload(ctx); !errors.Is(err, protorest.ErrNotLoaded) {
		t.Errorf("reload of a corrupt descriptor set: %v, want ErrNotLoaded", err)
	}
	if resp, _ := send(t, "GET", srv.URL+"/v1/books/dune", ""); resp.StatusCode != 200 {
		t.Errorf("book after a failed reload: %d", resp.StatusCode)
	}
}

func TestReloadConflictKeepsOldRoutes(t *testing.T) {
	t.Parallel()
	be := startBackend(t, "tcp", "127.0.0.1:0")
	path := filepath.Join(t.TempDir(), "backend.binpb")
	descsourcetest.WriteSet(t, path, examplev1.File_examples_example_v1_example_proto)

	gw := protorest.NewGateway()
	bookstorev1.RegisterBookServiceServer(gw, services.NewBookService()) // in-process
	if err := gw.RegisterRemote(context.Background(), dial(t, be.addr), protorest.WithDescriptorSetFile(path)); err != nil {
		t.Fatal(err)
	}
	// The backend's new descriptors carry a service the gateway serves
	// in-process: its routes conflict, and the reload changes nothing.
	descsourcetest.WriteSet(t, path, examplev1.File_examples_example_v1_example_proto, bookstorev1.File_examples_bookstore_v1_bookstore_proto)
	err := gw.Reload(context.Background())
	if err == nil || errors.Is(err, protorest.ErrNotLoaded) || !strings.Contains(err.Error(), "bookstore.v1.BookService") {
		t.Errorf("conflicting reload: %v", err)
	}
	if r := do(t, gw, "POST", "/api/v1/example/echo", `{"msg":"a"}`); r.code != 200 {
		t.Errorf("echo after a conflicting reload: %d %s", r.code, r.body)
	}
}

func TestRemotePendingUntilBackendStarts(t *testing.T) {
	t.Parallel()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close() // nothing listens there yet

	gw := protorest.NewGateway()
	conn := dial(t, addr)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = gw.RegisterRemote(ctx, conn, protorest.WithPending())
	if !errors.Is(err, protorest.ErrNotLoaded) {
		t.Fatalf("RegisterRemote against a missing backend: %v, want ErrNotLoaded", err)
	}
	r := do(t, gw, "POST", "/api/v1/example/upper", `{"msg":"x"}`)
	if r.code != 503 || !strings.Contains(r.body, `"code":14`) || strings.Contains(r.body, addr) {
		t.Errorf("before the backend is up: %d %s", r.code, r.body)
	}

	startBackend(t, "tcp", addr)
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := gw.Reload(ctx)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("backend never loaded: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := do(t, gw, "POST", "/api/v1/example/upper", `{"msg":"x"}`); r.code != 200 || r.body != `{"msg":"X"}` {
		t.Errorf("after the backend started: %d %s", r.code, r.body)
	}
	if r := do(t, gw, "GET", "/nothing/here", ""); r.code != 404 {
		t.Errorf("an unknown route once loaded: %d, want 404", r.code)
	}
}

// handoff passes one socket from an old server to a new one, as a
// zero-downtime restart does: connections go to whichever server's
// listener is open, and closing one listener leaves the socket open.
type handoff struct {
	lis   net.Listener
	conns chan net.Conn
}

func newHandoff(t *testing.T) *handoff {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &handoff{lis: lis, conns: make(chan net.Conn)}
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			h.conns <- c
		}
	}()
	t.Cleanup(func() { lis.Close() })
	return h
}

// listener returns a listener for one server.
func (h *handoff) listener() net.Listener {
	return &handoffListener{h: h, done: make(chan struct{})}
}

type handoffListener struct {
	h    *handoff
	done chan struct{}
	once sync.Once
}

func (l *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.h.conns:
		select {
		case <-l.done: // closed meanwhile: the connection is the next server's
			go func() { l.h.conns <- c }()
			return nil, net.ErrClosed
		default:
			return c, nil
		}
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *handoffListener) Close() error   { l.once.Do(func() { close(l.done) }); return nil }
func (l *handoffListener) Addr() net.Addr { return l.h.lis.Addr() }

// TestReloadWhileBackendRestarts restarts a Go gRPC backend with a new
// service while clients hammer the gateway, reloads, and checks that no
// request failed and the new service is served.
func TestReloadWhileBackendRestarts(t *testing.T) {
	t.Parallel()
	socket := newHandoff(t)
	old := grpc.NewServer()
	examplev1.RegisterMySvcServer(old, services.NewMySvc())
	reflection.Register(old)
	go old.Serve(socket.listener())
	t.Cleanup(old.Stop)

	gw := protorest.NewGateway()
	ctx := context.Background()
	if err := gw.RegisterRemote(ctx, dial(t, socket.lis.Addr().String())); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)

	var sent, failed atomic.Int64
	var firstFailure atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := http.Post(srv.URL+"/api/v1/example/echo", "application/json", strings.NewReader(`{"msg":"x"}`))
				sent.Add(1)
				if err != nil {
					failed.Add(1)
					firstFailure.CompareAndSwap(nil, err.Error())
					continue
				}
				body, err := io.ReadAll(resp.Body) // not readAll: this is not the test's goroutine
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 || string(body) != `{"msg":"echo: x"}` {
					failed.Add(1)
					firstFailure.CompareAndSwap(nil, fmt.Sprint(resp.Status, " ", string(body), " ", err))
				}
			}
		}()
	}
	waitFor := func(n int64) {
		for start := sent.Load(); sent.Load() < start+n; {
			time.Sleep(time.Millisecond)
		}
	}
	waitFor(50)

	// The new server takes over the socket; the old one drains and goes.
	next := grpc.NewServer()
	examplev1.RegisterMySvcServer(next, services.NewMySvc())
	bookstorev1.RegisterBookServiceServer(next, services.NewBookService())
	reflection.Register(next)
	go next.Serve(socket.listener())
	t.Cleanup(next.Stop)
	old.GracefulStop()
	waitFor(50)

	if err := gw.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(50)
	close(stop)
	wg.Wait()

	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d requests failed during the restart and reload; first: %v", n, sent.Load(), firstFailure.Load())
	}
	if resp, body := send(t, "GET", srv.URL+"/v1/books/dune", ""); resp.StatusCode != 200 {
		t.Errorf("the new service after reload: %d %s", resp.StatusCode, body)
	}
	t.Logf("%d requests, none failed", sent.Load())
}
