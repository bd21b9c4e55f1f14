package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// limitsServe runs serve against a fresh upstream with args and returns
// its host:port.
func limitsServe(t *testing.T, args ...string) string {
	t.Helper()
	s := startServe(t, append([]string{"--upstream", startUpstream(t, true), "--access-log=false"}, args...)...)
	return strings.TrimPrefix(s.url, "http://")
}

// keepAliveGET sends a GET of path on c and reads the response, leaving the
// connection open.
func keepAliveGET(c net.Conn, br *bufio.Reader, path string) (*http.Response, error) {
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, err
}

func TestMaxConnectionsDefault(t *testing.T) {
	for _, tt := range []struct {
		limit uint64
		want  int
	}{
		{1 << 62, 10000}, {1 << 20, 10000}, {20000, 10000}, {10256, 10000}, {10000, 9744},
		{4096, 3840}, {1024, 768}, {256, 128}, {1, 1},
	} {
		if got := maxConnectionsFor(tt.limit); got != tt.want {
			t.Errorf("maxConnectionsFor(%d) = %d, want %d", tt.limit, got, tt.want)
		}
	}
	if n := defaultMaxConnections(); n < 1 || n > maxConnectionsCap {
		t.Errorf("defaultMaxConnections() = %d", n)
	}
}

// TestIdleTimeout: serve closes a keep-alive connection idle for
// --idle-timeout.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	addr := limitsServe(t, "--idle-timeout", "300ms")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	if resp, err := keepAliveGET(c, br, "/livez"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /livez: %v %v", resp, err)
	}
	start := time.Now()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = br.ReadByte()
	waited := time.Since(start)
	if err != io.EOF || waited < 250*time.Millisecond || waited > 2*time.Second {
		t.Errorf("idle connection: %v after %v; want EOF after about 300ms", err, waited)
	}
}

// TestMaxHeaderBytes: a 70 KiB header gets 431 under the default 64 KiB,
// a 60 KiB one is served.
func TestMaxHeaderBytes(t *testing.T) {
	t.Parallel()
	addr := limitsServe(t)
	for _, tt := range []struct {
		size int
		want int
	}{{60 << 10, 200}, {70 << 10, 431}} {
		req, _ := http.NewRequest("GET", "http://"+addr+"/livez", nil)
		req.Header.Set("X-Big", strings.Repeat("a", tt.size))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("a %d KiB header: %d, want %d", tt.size>>10, resp.StatusCode, tt.want)
		}
	}
}

// TestIdleFloodBeyondMaxConnections is the "must show": a flood of
// idle keep-alive connections, four times --max-connections, leaves a
// legitimate client served within a second.
func TestIdleFloodBeyondMaxConnections(t *testing.T) {
	t.Parallel()
	const limit, flood = 50, 200
	addr := limitsServe(t, "--max-connections", fmt.Sprint(limit), "--idle-timeout", "500ms")
	var mu sync.Mutex
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	served := 0
	var wg sync.WaitGroup
	for i := range flood {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			t.Fatalf("flood connection %d: %v", i, err)
		}
		conns = append(conns, c)
		wg.Go(func() { // a request, then idle with the connection open
			c.SetDeadline(time.Now().Add(3 * time.Second))
			if resp, err := keepAliveGET(c, bufio.NewReader(c), "/livez"); err == nil && resp.StatusCode == 200 {
				mu.Lock()
				served++
				mu.Unlock()
			}
		})
	}
	// The legitimate client: a new connection, once the flood is in.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	start := time.Now()
	resp, err := client.Post("http://"+addr+"/api/v1/example/upper", "application/json", strings.NewReader(`{"msg":"ok"}`))
	took := time.Since(start)
	if err != nil {
		t.Fatalf("legitimate client after %v: %v", took, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	wg.Wait()
	t.Logf("%d idle connections over a limit of %d (%d of them served first): legitimate client served in %v", flood, limit, served, took)
	if resp.StatusCode != 200 || string(body) != `{"msg":"OK"}` || took > time.Second {
		t.Errorf("legitimate client: %d %s in %v; want 200 within 1s", resp.StatusCode, body, took)
	}
}

// TestLimitListenerSlots: slots come back exactly once however a
// connection ends (closed by the client, by the server after the idle
// timeout, hijacked and closed twice, over TLS), and the limit holds.
func TestLimitListenerSlots(t *testing.T) {
	t.Parallel()
	const limit = 4
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/hijack", func(w http.ResponseWriter, r *http.Request) {
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		brw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
		brw.Flush()
		c.Close()
		c.Close()
	})
	cfg := newServeConfig()
	cfg.maxConnections = limit
	cfg.idleTimeout = 100 * time.Millisecond
	srv, lis := cfg.httpServer(mux, nil, inner)
	ll := lis.(*limitListener)
	go srv.Serve(lis)
	defer srv.Close()

	// The same over TLS: the server sees *tls.Conn over the limited one.
	tlsSrv := httptest.NewUnstartedServer(mux)
	tlsInner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tlsLL := newLimitListener(tlsInner, limit)
	tlsSrv.Listener = tlsLL
	tlsSrv.Config.ConnState = tlsLL.ConnState
	tlsSrv.StartTLS()
	defer tlsSrv.Close()

	url := "http://" + inner.Addr().String()
	get := func(client *http.Client, u string) error {
		resp, err := client.Get(u)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("%s: %d", u, resp.StatusCode)
		}
		return nil
	}
	noKeepAlive := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	tlsTransport := tlsSrv.Client().Transport.(*http.Transport).Clone()
	tlsTransport.DisableKeepAlives = true
	tlsClient := &http.Client{Transport: tlsTransport, Timeout: 5 * time.Second}
	for i := range 100 { // 25 times the limit: a leaked slot would block Accept
		for _, step := range []func() error{
			func() error { return get(noKeepAlive, url+"/") },
			func() error { return get(noKeepAlive, url+"/hijack") },
			func() error { return get(tlsClient, tlsSrv.URL+"/") },
			func() error { return get(tlsClient, tlsSrv.URL+"/hijack") },
		} {
			if err := step(); err != nil {
				t.Fatalf("cycle %d: %v (open %d, %d)", i, err, ll.Open(), tlsLL.Open())
			}
		}
	}
	// Connections the client leaves open, idle: they hold slots until the
	// idle timeout, and more of them than the limit evict the oldest.
	keep := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100}, Timeout: 5 * time.Second}
	var wg sync.WaitGroup
	for range 3 * limit {
		wg.Go(func() {
			if err := get(keep, url+"/"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := ll.Open(); n > limit {
		t.Errorf("%d connections open, over the limit of %d", n, limit)
	}
	keep.CloseIdleConnections()
	for _, l := range []*limitListener{ll, tlsLL} {
		deadline := time.Now().Add(3 * time.Second)
		for l.Open() != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := l.Open(); n != 0 {
			t.Errorf("%d slots still taken after every connection closed", n)
		}
	}
}

// TestLimitListenerWaitsWhenBusy: with every slot busy (a request in
// flight), a new connection is not accepted, and is served as soon as one
// frees; the busy connection is not evicted.
func TestLimitListenerWaitsWhenBusy(t *testing.T) {
	t.Parallel()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) { <-release; io.WriteString(w, "slow") })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	cfg := newServeConfig()
	cfg.maxConnections = 1
	srv, lis := cfg.httpServer(mux, nil, inner)
	go srv.Serve(lis)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	url := "http://" + inner.Addr().String()

	slow := make(chan error, 1)
	go func() {
		resp, err := client.Get(url + "/slow")
		if err == nil {
			resp.Body.Close()
		}
		slow <- err
	}()
	for lis.(*limitListener).Open() != 1 {
		time.Sleep(time.Millisecond)
	}
	fast := make(chan error, 1)
	go func() {
		resp, err := client.Get(url + "/")
		if err == nil {
			resp.Body.Close()
		}
		fast <- err
	}()
	select {
	case err := <-fast:
		t.Fatalf("served while the only slot was busy: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	if err := <-slow; err != nil {
		t.Errorf("the busy connection: %v", err)
	}
	select {
	case err := <-fast:
		if err != nil {
			t.Errorf("the waiting connection: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Error("the waiting connection was not served once the slot freed")
	}
}

// TestMaxConnectionsWebSocket: WebSockets through serve (hijacked
// connections) give their slots back when they close, from either side.
func TestMaxConnectionsWebSocket(t *testing.T) {
	t.Parallel()
	addr := limitsServe(t, "--max-connections", "2")
	for i := range 50 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, _, err := websocket.Dial(ctx, "ws://"+addr+"/api/v1/example/chat", nil)
		if err != nil {
			cancel()
			t.Fatalf("dial %d: %v", i, err)
		}
		if err := c.Write(ctx, websocket.MessageText, []byte(`{"msg":"hi"}`)); err != nil {
			t.Fatal(err)
		}
		_, msg, err := c.Read(ctx)
		if err != nil || string(msg) != `{"msg":"HI"}` {
			t.Fatalf("read %d: %s %v", i, msg, err)
		}
		if i%2 == 0 {
			c.Close(websocket.StatusNormalClosure, "")
		} else {
			c.CloseNow()
		}
		cancel()
	}
	// Served still: no slot leaked.
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + addr + "/livez")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// TestHTTP2MaxConcurrentStreams: serve's HTTP/2 (h2c here) advertises
// --max-concurrent-streams in its SETTINGS.
func TestHTTP2MaxConcurrentStreams(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want uint32
	}{{nil, 100}, {[]string{"--max-concurrent-streams", "7"}, 7}} {
		addr := limitsServe(t, tt.args...)
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		// The client preface and an empty SETTINGS frame.
		io.WriteString(c, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
		head := make([]byte, 9)
		if _, err := io.ReadFull(c, head); err != nil {
			t.Fatal(err)
		}
		n := int(head[0])<<16 | int(head[1])<<8 | int(head[2])
		if head[3] != 4 || n%6 != 0 {
			t.Fatalf("first frame: type %d, length %d; want SETTINGS", head[3], n)
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(c, payload); err != nil {
			t.Fatal(err)
		}
		c.Close()
		got := uint32(0)
		for i := 0; i < n; i += 6 {
			if id := int(payload[i])<<8 | int(payload[i+1]); id == 3 { // SETTINGS_MAX_CONCURRENT_STREAMS
				got = uint32(payload[i+2])<<24 | uint32(payload[i+3])<<16 | uint32(payload[i+4])<<8 | uint32(payload[i+5])
			}
		}
		if got != tt.want {
			t.Errorf("%v: SETTINGS_MAX_CONCURRENT_STREAMS %d, want %d", tt.args, got, tt.want)
		}
	}
}

// TestReadIdleTimeoutFlag: a request body that stops coming gets 408
// DEADLINE_EXCEEDED after --read-idle-timeout, and the connection is
// closed.
func TestReadIdleTimeoutFlag(t *testing.T) {
	t.Parallel()
	addr := limitsServe(t, "--read-idle-timeout", "200ms")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	fmt.Fprint(c, "POST /api/v1/example/upper HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{\"ms")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	waited := time.Since(start)
	if resp.StatusCode != http.StatusRequestTimeout || string(body) != `{"code":4,"message":"no request body bytes for 200ms","details":[]}` {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	if waited < 200*time.Millisecond || waited > 2*time.Second {
		t.Errorf("answered after %v, want about 200ms", waited)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("after the 408: %v, want the connection closed", err)
	}
}
