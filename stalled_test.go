package protorest_test

import (
	"bytes"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

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
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for _, f := range [][2]string{{":method", "GET"}, {":scheme", "http"}, {":authority", c.conn.RemoteAddr().String()}, {":path", path}} {
		enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	id := c.next
	c.next += 2
	if err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block.Bytes(), EndStream: true, EndHeaders: true}); err != nil {
		t.Fatal(err)
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
