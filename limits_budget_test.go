package protorest_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// fetchAll sends GET path to srv over HTTP/1.1 and reads the whole response.
func fetchAll(t *testing.T, srv *httptest.Server, path string) (*http.Response, string) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// TestBufferedResponseBudget: a response holds its bytes against
// WithMaxBufferedResponseBytes while a client fails to read it; another
// that finds no room gets, after WithBufferedResponseWait, 503
// UNAVAILABLE with Retry-After; the bytes come back when the stalled
// client leaves, or when WithResponseWriteTimeout resets its stream. A
// small response, which fits in what is left, is served meanwhile.
func TestBufferedResponseBudget(t *testing.T) {
	t.Parallel()
	gw := newFixture(t, "A", largeReplies(75<<10), // 100 KiB of JSON
		protorest.WithMaxBufferedResponseBytes(150<<10),
		protorest.WithBufferedResponseWait(50*time.Millisecond),
		protorest.WithResponseWriteTimeout(0))
	srv := h2cServer(t, gw)
	stalled := dialStalled(t, srv.Listener.Addr().String())
	id := stalled.Get(t, "/v1/probes/blob")
	if !waitFor(5*time.Second, func() bool { return stalled.Status(id) == 200 }) {
		t.Fatalf("the stalled stream: status %d", stalled.Status(id))
	}
	start := time.Now()
	resp, body := fetchAll(t, srv, "/v1/probes/blob")
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || !strings.Contains(body, `"code":14`) {
		t.Errorf("no room: %d %v %.200s", resp.StatusCode, resp.Header, body)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Errorf("503 after %v, before the wait of 50ms", waited)
	}
	if resp, body := fetchAll(t, srv, "/v1/probes/small"); resp.StatusCode != 200 {
		t.Errorf("a small response while the budget is full: %d %.200s", resp.StatusCode, body)
	}
	stalled.Close()
	if !waitFor(5*time.Second, func() bool {
		resp, _ := fetchAll(t, srv, "/v1/probes/blob")
		return resp.StatusCode == 200
	}) {
		t.Error("the budget was not given back when the stalled client left")
	}

	// With a write timeout, the stalled stream is reset and its bytes
	// given back without the client leaving.
	gw = newFixture(t, "A", largeReplies(75<<10),
		protorest.WithMaxBufferedResponseBytes(150<<10),
		protorest.WithBufferedResponseWait(0),
		protorest.WithResponseWriteTimeout(200*time.Millisecond))
	srv = h2cServer(t, gw)
	stalled = dialStalled(t, srv.Listener.Addr().String())
	start = time.Now()
	id = stalled.Get(t, "/v1/probes/blob")
	if !waitFor(5*time.Second, func() bool { _, ok := stalled.Reset(id); return ok }) {
		t.Fatal("the stalled stream was not reset at the write timeout")
	}
	if at, _ := stalled.Reset(id); at.Sub(start) < 200*time.Millisecond {
		t.Errorf("reset after %v, before the write timeout of 200ms", at.Sub(start))
	}
	if resp, body := fetchAll(t, srv, "/v1/probes/blob"); resp.StatusCode != 200 || len(body) < 100<<10 {
		t.Errorf("after the reset: %d, %d bytes", resp.StatusCode, len(body))
	}
}

// TestStalledReadersMemoryBounded is the amplification case of a slow
// client: 50 HTTP/2 streams that never read a 2.5 MB response. Without
// a budget each would hold its 2.5 MB (125 MB); with a budget of 16 MiB
// at most six hold theirs, the others get 503, and the live heap grows by
// no more than the budget and a margin.
func TestStalledReadersMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	if raceEnabled {
		// The detector makes the 50 renders of 2.5 MB take minutes on a
		// loaded machine; the budget's logic runs under it in
		// TestBufferedResponseBudget and render's TestBudget.
		t.Skip("too slow under the race detector")
	}
	const budget = 16 << 20
	gw := newFixture(t, "A", largeReplies(1875<<10), // 2.5 MB of JSON
		protorest.WithMaxBufferedResponseBytes(budget),
		protorest.WithBufferedResponseWait(100*time.Millisecond),
		protorest.WithResponseWriteTimeout(0))
	srv := h2cServer(t, gw)
	before := liveHeap()
	stalled := dialStalled(t, srv.Listener.Addr().String())
	var ids []uint32
	for range 50 {
		ids = append(ids, stalled.Get(t, "/v1/probes/blob"))
	}
	// Each of the 44 without room waits, before it renders, then gets its
	// 503; those with room render theirs (slow on a loaded machine).
	if !waitFor(time.Minute, func() bool {
		for _, id := range ids {
			if stalled.Status(id) == 0 {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("not every stream was answered: %v", stalled.Statuses())
	}
	grown := int64(liveHeap()) - int64(before)
	counts := stalled.Statuses()
	t.Logf("50 stalled readers of a 2.5 MB response, budget 16 MiB: statuses %v, live heap +%.1f MB", counts, float64(grown)/1e6)
	if counts[200] > budget/(2500<<10)+1 || counts[200]+counts[503] != 50 {
		t.Errorf("statuses %v: more responses held than the budget has room for", counts)
	}
	if grown > budget+16<<20 {
		t.Errorf("the live heap grew by %d bytes, more than the budget of %d and a 16 MiB margin", grown, budget)
	}
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestLargeResponsesMemoryBounded is the amplification case of a large
// response read by many clients at once (RELIABILITY.md's "Response
// amplification"): 16 concurrent GETs of a probe with 100,000 labels
// (1.7 MB of protobuf, 1.7 MB of JSON), in-process and through a remote
// backend, under a budget of 8 MiB. Rendering a response holds several
// times its size (the message's bytes, the JSON, the sorted map's
// entries), so each takes that from the budget before it is rendered:
// they render about one at a time, the others waiting (all are
// answered), and the heap grows by no more than the budget, the bytes
// the remote responses hold while they wait (each its backend's bytes,
// received before it can wait: three times them, with grpc's receive
// buffer and the backend's send buffer in this process), and a margin.
// When the budget counted only the rendered bodies, every response
// rendered at once, holding what the budget did not see: in-process
// +101 MB, remote +452 MB (with the encoder's larger bookkeeping of the
// time); the remote case is about 80 MB here, the in-process one 10 MB.
func TestLargeResponsesMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	if raceEnabled {
		t.Skip("measures the heap, which the race detector bloats")
	}
	const (
		labels  = 100_000
		clients = 16
		budget  = 8 << 20
		margin  = 16 << 20
	)
	probe := &confv1.Probe{Name: "big", Labels: make(map[string]string, labels)}
	for i := range labels {
		probe.Labels[fmt.Sprintf("lbl-%06d", i)] = "x"
	}
	wire := proto.Size(probe)
	rec := &recorder{reply: func(string, proto.Message) (proto.Message, error) { return probe, nil }}
	opts := []protorest.Option{
		protorest.WithMaxBufferedResponseBytes(budget),
		protorest.WithBufferedResponseWait(time.Minute), // every response waits its turn
	}

	inProcess := newFixture(t, "A", rec, opts...)
	remote := remoteFixture(t, rec, opts...)

	// A low GC target keeps the garbage of earlier renders from hiding
	// what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	for _, tt := range []struct {
		name  string
		gw    http.Handler
		bound int // what the heap may grow by
	}{
		{"in-process", inProcess, budget + margin},
		{"remote", remote, budget + clients*3*wire + margin},
	} {
		srv := h2cServer(t, tt.gw)
		want := fetchAll200(t, srv.Client(), srv.URL+"/v1/probes/big") // the JSON's size; plans and pools warmed
		before := liveHeap()
		stop := sampleHeap()
		var wg sync.WaitGroup
		got := make([]int, clients)
		for i := range clients {
			wg.Go(func() { got[i] = fetchAll200(t, srv.Client(), srv.URL+"/v1/probes/big") })
		}
		wg.Wait()
		grown := int(stop()) - int(before)
		t.Logf("%s: %d clients of a %.1f MB response (%.1f MB of protobuf), budget %d MiB: heap +%.1f MB at its peak, bound %.1f MB",
			tt.name, clients, float64(want)/1e6, float64(wire)/1e6, budget>>20, float64(grown)/1e6, float64(tt.bound)/1e6)
		for i, n := range got {
			if n != want {
				t.Errorf("%s: client %d got %d bytes, want %d", tt.name, i, n, want)
			}
		}
		if grown > tt.bound {
			t.Errorf("%s: the heap grew by %d bytes at its peak, more than %d", tt.name, grown, tt.bound)
		}
	}
}

// fetchAll200 GETs url and returns the length of its body, failing
// unless the status is 200.
func fetchAll200(t *testing.T, client *http.Client, url string) int {
	resp, err := client.Get(url)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != 200 || err != nil {
		t.Errorf("GET %s: %d, %v", url, resp.StatusCode, err)
	}
	return int(n)
}

// sampleHeap samples the bytes of heap objects (live, and garbage not
// yet swept) every millisecond until stop, which returns the highest.
func sampleHeap() (stop func() uint64) {
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var high uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			high = max(high, s[0].Value.Uint64())
			select {
			case <-done:
				peak <- high
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(done); return <-peak }
}

// stalledClient is an HTTP/2 client that never reads a response body: it
// announces a flow-control window of 0 bytes for every stream, so the
// server can send headers but no data, and a handler's write blocks. It
// stands for the slowest readers there are.
type stalledClient struct {
	conn net.Conn
	fr   *http2.Framer
	wmu  sync.Mutex // guards fr's writes and next
	next uint32     // the next stream's id

	mu     sync.Mutex
	status map[uint32]int       // :status of each stream that got headers
	reset  map[uint32]time.Time // when each stream was reset
	closed chan struct{}        // closed when the connection ends
}

// dialStalled opens a stalled client's connection to addr (h2c, prior
// knowledge).
func dialStalled(t *testing.T, addr string) *stalledClient {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c := &stalledClient{conn: conn, fr: http2.NewFramer(conn, conn), next: 1,
		status: map[uint32]int{}, reset: map[uint32]time.Time{}, closed: make(chan struct{})}
	c.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	if _, err := conn.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	if err := c.fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0}); err != nil {
		t.Fatal(err)
	}
	go c.readLoop()
	t.Cleanup(c.Close)
	return c
}

func (c *stalledClient) readLoop() {
	defer close(c.closed)
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				c.wmu.Lock()
				c.fr.WriteSettingsAck()
				c.wmu.Unlock()
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				c.wmu.Lock()
				c.fr.WritePing(true, f.Data)
				c.wmu.Unlock()
			}
		case *http2.MetaHeadersFrame:
			code, _ := strconv.Atoi(f.PseudoValue("status"))
			c.mu.Lock()
			c.status[f.StreamID] = code
			c.mu.Unlock()
		case *http2.RSTStreamFrame:
			c.mu.Lock()
			c.reset[f.StreamID] = time.Now()
			c.mu.Unlock()
		}
	}
}

// Get opens a GET stream for path and returns its id.
func (c *stalledClient) Get(t *testing.T, path string) uint32 {
	t.Helper()
	return c.open(t, [][2]string{{":method", "GET"}, {":path", path}}, nil, true)
}

// GetUnended opens a GET stream for path with the header fields, and
// leaves it open (no END_STREAM), as a client with more to send would.
func (c *stalledClient) GetUnended(t *testing.T, path string, fields ...[2]string) uint32 {
	t.Helper()
	return c.open(t, append([][2]string{{":method", "GET"}, {":path", path}}, fields...), nil, false)
}

// Post opens a POST stream for path, sends body (within the server's
// window) and returns its id. fields are its header fields besides the
// pseudo-headers.
func (c *stalledClient) Post(t *testing.T, path string, body []byte, fields ...[2]string) uint32 {
	t.Helper()
	return c.open(t, append([][2]string{{":method", "POST"}, {":path", path}}, fields...), body, true)
}

// open opens a stream with the header fields (the :method and :path
// first), and body after them if it is not nil, ended if end is set, and
// returns its id.
func (c *stalledClient) open(t *testing.T, fields [][2]string, body []byte, end bool) uint32 {
	t.Helper()
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	fields = append(fields[:2:2], append([][2]string{{":scheme", "http"}, {":authority", c.conn.RemoteAddr().String()}}, fields[2:]...)...)
	for _, f := range fields {
		enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	id := c.next
	c.next += 2
	if err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block.Bytes(), EndStream: body == nil && end, EndHeaders: true}); err != nil {
		t.Fatal(err)
	}
	if body != nil {
		if err := c.fr.WriteData(id, end, body); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// Status returns the :status of stream id, 0 before its headers.
func (c *stalledClient) Status(id uint32) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status[id]
}

// Statuses counts the streams by :status.
func (c *stalledClient) Statuses() map[int]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := map[int]int{}
	for _, code := range c.status {
		n[code]++
	}
	return n
}

// Reset reports whether stream id was reset by the server, and when.
func (c *stalledClient) Reset(id uint32) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.reset[id]
	return at, ok
}

// Close closes the connection, which ends every stream on it.
func (c *stalledClient) Close() { c.conn.Close() }

// waitFor polls cond every 5 ms for at most d.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}
