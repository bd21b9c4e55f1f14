package render

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/protorest/protorest/internal/budget"
	"github.com/protorest/protorest/internal/httperr"
)

// h2cServer serves h over HTTP/2 without TLS (h2c, prior knowledge) on a
// loopback port, and returns its address.
func h2cServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// respondWhole writes body as Reply.Respond writes a whole response:
// its write limited (d), its bytes held from b until release.
func respondWhole(b *budget.Budget, d time.Duration, body []byte, returned chan<- time.Time) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		hold, err := b.Take(r.Context(), int64(len(body)))
		if err != nil {
			panic(err)
		}
		limit := limitBody(w, r, d, len(body))
		w.Write(body)
		limit.end()
		limit.release(hold)
		returned <- time.Now()
	}
}

// handlerReturned waits at most 5 s for the handler to return, and
// returns when it did.
func handlerReturned(t *testing.T, returned <-chan time.Time) time.Time {
	t.Helper()
	select {
	case at := <-returned:
		return at
	case <-time.After(5 * time.Second):
		t.Fatal("the handler did not return: it waits for the client's window")
		return time.Time{}
	}
}

// h2Frames is a client of raw HTTP/2 frames, its stream windows zero
// until it opens them.
type h2Frames struct {
	conn net.Conn
	fr   *http2.Framer
}

func dialZeroWindow(t *testing.T, addr string) *h2Frames {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &h2Frames{conn: conn, fr: http2.NewFramer(conn, conn)}
	c.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	conn.Write([]byte(http2.ClientPreface))
	if err := c.fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0}); err != nil {
		t.Fatal(err)
	}
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for _, f := range [][2]string{{":method", "GET"}, {":path", "/"}, {":scheme", "http"}, {":authority", addr}} {
		enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	if err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block.Bytes(), EndStream: true, EndHeaders: true}); err != nil {
		t.Fatal(err)
	}
	return c
}

// streamFrames reads frames until stream 1 ends (END_STREAM or
// RST_STREAM) and returns those of stream 1, acknowledging settings.
func (c *h2Frames) streamFrames(t *testing.T) []http2.Frame {
	t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var frames []http2.Frame
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			t.Fatalf("after %d frames of the stream: %v", len(frames), err)
		}
		if s, ok := f.(*http2.SettingsFrame); ok && !s.IsAck() {
			c.fr.WriteSettingsAck()
		}
		if f.Header().StreamID != 1 {
			continue
		}
		if d, ok := f.(*http2.DataFrame); ok {
			// The framer reuses a DATA frame's buffer.
			frames = append(frames, &http2.DataFrame{FrameHeader: d.FrameHeader})
			if d.StreamEnded() {
				return frames
			}
			continue
		}
		frames = append(frames, f)
		if _, ok := f.(*http2.RSTStreamFrame); ok {
			return frames
		}
	}
}

// TestHTTP2WholeResponseHeldUntilStreamCloses: on HTTP/2 a whole
// response is not flushed before the handler returns: its body goes in
// the frame that ends the stream (HEADERS, then one DATA with
// END_STREAM), and its bytes stay held from the budget, after the handler
// has returned, until net/http has written that frame: here only once
// the client opens its window.
func TestHTTP2WholeResponseHeldUntilStreamCloses(t *testing.T) {
	b := budget.New(1<<20, 0, time.Second)
	returned := make(chan time.Time, 1)
	body := []byte(`{"name":"shelves/1/books/007"}`)
	addr := h2cServer(t, respondWhole(b, time.Minute, body, returned))
	c := dialZeroWindow(t, addr)
	handlerReturned(t, returned)
	time.Sleep(50 * time.Millisecond)
	if got := b.Held(); got != int64(len(body)) {
		t.Fatalf("the handler returned, the body unsent (zero window): %d bytes held, want %d", got, len(body))
	}
	if err := c.fr.WriteWindowUpdate(1, 1<<16); err != nil {
		t.Fatal(err)
	}
	frames := c.streamFrames(t)
	if len(frames) != 2 {
		t.Fatalf("frames of the stream: %v, want HEADERS and one DATA", frames)
	}
	if _, ok := frames[0].(*http2.MetaHeadersFrame); !ok {
		t.Errorf("first frame %v, want HEADERS", frames[0])
	}
	if d, ok := frames[1].(*http2.DataFrame); !ok || d.Length != uint32(len(body)) || !d.StreamEnded() {
		t.Errorf("second frame %v, want DATA of %d bytes with END_STREAM", frames[1], len(body))
	}
	if !eventually(func() bool { return b.Held() == 0 }) {
		t.Errorf("the stream closed: %d bytes still held", b.Held())
	}
}

// TestHTTP2WholeResponseReleasedOnReset: a client that never opens its
// window holds the response's bytes until the write deadline resets the
// stream, and no longer.
func TestHTTP2WholeResponseReleasedOnReset(t *testing.T) {
	b := budget.New(1<<20, 0, time.Second)
	returned := make(chan time.Time, 1)
	addr := h2cServer(t, respondWhole(b, 100*time.Millisecond, []byte(`{}`), returned))
	c := dialZeroWindow(t, addr)
	handlerReturned(t, returned)
	frames := c.streamFrames(t)
	if _, ok := frames[len(frames)-1].(*http2.RSTStreamFrame); !ok {
		t.Fatalf("frames of the stream: %v, want it reset", frames)
	}
	if !eventually(func() bool { return b.Held() == 0 }) {
		t.Errorf("the stream was reset: %d bytes still held", b.Held())
	}
}

// TestNetHTTP2Found: netHTTP2 finds net/http's HTTP/2
// response (its type's name, netHTTP2Writer, is unexported and could
// change with Go) through middleware that unwraps, and nothing for
// HTTP/1.1, a recorder, or behind middleware that does not unwrap.
func TestNetHTTP2Found(t *testing.T) {
	found := make(chan [3]bool, 1)
	addr := h2cServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		found <- [3]bool{netHTTP2(w) != nil, netHTTP2(unwrapping{w}) != nil, netHTTP2(hiding{w}) != nil}
	}))
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := <-found; got != [3]bool{true, true, false} {
		t.Errorf("net/http's HTTP/2 response, unwrapped, hidden: found %v, want [true true false]", got)
	}
	if netHTTP2(httptest.NewRecorder()) != nil {
		t.Error("found a stream for a recorder")
	}
}

type unwrapping struct{ http.ResponseWriter }

func (u unwrapping) Unwrap() http.ResponseWriter { return u.ResponseWriter }

type hiding struct{ http.ResponseWriter }

func eventually(cond func() bool) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(5 * time.Millisecond):
		}
	}
	return true
}

// boundedError serves every request an error response through
// c.Bounded: 503 and a small JSON body, err Busy when busy is set.
func boundedError(c *Config, busy bool, returned chan<- time.Time) http.HandlerFunc {
	h := c.Bounded(func(w http.ResponseWriter, r *http.Request, err error) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"code":14,"message":"` + err.Error() + `"}`))
	})
	return func(w http.ResponseWriter, r *http.Request) {
		err := errors.New("unavailable")
		if busy {
			err = httperr.Busy("too many calls")
		}
		h(w, r, err)
		returned <- time.Now()
	}
}

// TestHTTP2ErrorEndsInItsData: on HTTP/2 an error response (Bounded) is
// not flushed: the handler returns at once to a client that does not
// read, the response goes in the frame that ends the stream once the
// client opens its window, and what it holds (budget.Overhead) stays
// held until then.
func TestHTTP2ErrorEndsInItsData(t *testing.T) {
	b := budget.New(1<<20, 0, time.Second)
	returned := make(chan time.Time, 1)
	addr := h2cServer(t, boundedError(&Config{Budget: b, WriteTimeout: time.Minute}, false, returned))
	c := dialZeroWindow(t, addr)
	handlerReturned(t, returned)
	time.Sleep(50 * time.Millisecond)
	if got := b.Held(); got != budget.Overhead {
		t.Fatalf("the error unsent (zero window): %d bytes held, want %d", got, budget.Overhead)
	}
	if err := c.fr.WriteWindowUpdate(1, 1<<16); err != nil {
		t.Fatal(err)
	}
	frames := c.streamFrames(t)
	if len(frames) != 2 {
		t.Fatalf("frames of the stream: %v, want HEADERS and one DATA", frames)
	}
	if d, ok := frames[1].(*http2.DataFrame); !ok || !d.StreamEnded() || d.Length == 0 {
		t.Errorf("second frame %v, want the body's DATA with END_STREAM", frames[1])
	}
	if !eventually(func() bool { return b.Held() == 0 }) {
		t.Errorf("the stream closed: %d bytes still held", b.Held())
	}
}

// TestHTTP2BusyErrorReturnsAtOnce: a Busy error to a client that does not
// read does not keep the handler for refusedWriteTimeout: it returns at
// once, and the stream is reset at that deadline, its hold given back.
func TestHTTP2BusyErrorReturnsAtOnce(t *testing.T) {
	b := budget.New(1<<20, 0, time.Second)
	returned := make(chan time.Time, 1)
	addr := h2cServer(t, boundedError(&Config{Budget: b, WriteTimeout: time.Minute}, true, returned))
	start := time.Now()
	c := dialZeroWindow(t, addr)
	if took := handlerReturned(t, returned).Sub(start); took >= refusedWriteTimeout {
		t.Errorf("the handler returned after %v, want before the %v deadline", took, refusedWriteTimeout)
	}
	frames := c.streamFrames(t)
	if _, ok := frames[len(frames)-1].(*http2.RSTStreamFrame); !ok {
		t.Fatalf("frames of the stream: %v, want it reset", frames)
	}
	if reset := time.Since(start); reset < refusedWriteTimeout {
		t.Errorf("reset after %v, before the %v deadline", reset, refusedWriteTimeout)
	}
	if !eventually(func() bool { return b.Held() == 0 }) {
		t.Errorf("the stream was reset: %d bytes still held", b.Held())
	}
}
