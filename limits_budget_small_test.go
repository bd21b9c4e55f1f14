package protorest_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/protorest/protorest"
)

// newServerTest serves h with NewServer's settings (HTTP/1.1 and h2c, a
// share of the response budget for each connection) on a loopback port.
func newServerTest(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config = protorest.NewServer("", h)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// TestSmallResponsesBudgeted: small responses take from the response
// budget too (16 KiB each, besides their body), so that a client that
// reads none of them cannot pile them up: a connection that reads
// nothing holds three within a share of 64 KiB; its other responses wait
// for room (a share's worth of them; the rest are refused at once), get
// 503 with Retry-After, and, not read either, are reset 250 ms later.
// Another connection is served meanwhile, and the stalled one's share
// comes back when it leaves.
func TestSmallResponsesBudgeted(t *testing.T) {
	t.Parallel()
	gw := newFixture(t, "A", largeReplies(1),
		protorest.WithMaxBufferedResponseBytes(1<<20),
		protorest.WithMaxBufferedResponseBytesPerConn(64<<10),
		protorest.WithBufferedResponseWait(50*time.Millisecond),
		protorest.WithResponseWriteTimeout(0))
	srv := newServerTest(t, gw)
	stalled := dialStalled(t, srv.Listener.Addr().String())
	var ids []uint32
	for range 20 {
		ids = append(ids, stalled.Get(t, "/v1/probes/small"))
	}
	if !waitFor(5*time.Second, func() bool {
		n := stalled.Statuses()
		return n[200]+n[503] == 20
	}) {
		t.Fatalf("statuses %v, want 20", stalled.Statuses())
	}
	if n := stalled.Statuses(); n[200] != 3 {
		t.Errorf("statuses %v: want 3 responses held within the share of 64 KiB", n)
	}
	if !waitFor(5*time.Second, func() bool {
		resets := 0
		for _, id := range ids {
			if _, ok := stalled.Reset(id); ok && stalled.Status(id) == 503 {
				resets++
			}
		}
		return resets == 17
	}) {
		t.Error("the unread 503s were not reset")
	}
	for _, id := range ids {
		if _, ok := stalled.Reset(id); ok && stalled.Status(id) == 200 {
			t.Errorf("stream %d, held within the share, was reset (no write timeout)", id)
		}
	}
	start := time.Now()
	if resp, body := fetchAll(t, srv, "/v1/probes/small"); resp.StatusCode != 200 || time.Since(start) > time.Second {
		t.Errorf("another connection, while one holds its share: %d after %v %.200s", resp.StatusCode, time.Since(start), body)
	}
	stalled.Close()
	again := dialStalled(t, srv.Listener.Addr().String())
	for range 3 {
		again.Get(t, "/v1/probes/small")
	}
	if !waitFor(5*time.Second, func() bool { return again.Statuses()[200] == 3 }) {
		t.Errorf("after the stalled client left: %v, want 3 held again", again.Statuses())
	}
}

// TestWriteTimeoutEveryResponse: the write timeout bounds every response
// a client does not read, however small, errors included, on HTTP/2 (the
// stream is reset) as on HTTP/1.1 (whose small responses the socket's
// buffer takes: the client has it).
func TestWriteTimeoutEveryResponse(t *testing.T) {
	t.Parallel()
	gw := newFixture(t, "A", largeReplies(1), protorest.WithResponseWriteTimeout(200*time.Millisecond))
	srv := newServerTest(t, gw)
	stalled := dialStalled(t, srv.Listener.Addr().String())
	for _, path := range []string{"/v1/probes/small", "/nowhere"} {
		start := time.Now()
		id := stalled.Get(t, path)
		if !waitFor(5*time.Second, func() bool { _, ok := stalled.Reset(id); return ok }) {
			t.Fatalf("%s: the unread response was not reset", path)
		}
		if at, _ := stalled.Reset(id); at.Sub(start) < 200*time.Millisecond {
			t.Errorf("%s: reset after %v, before the write timeout of 200ms", path, at.Sub(start))
		}
	}
	for _, path := range []string{"/v1/probes/small", "/nowhere"} {
		resp, body := fetchAll(t, srv, path)
		if want := map[bool]int{true: 200, false: 404}[strings.HasPrefix(path, "/v1")]; resp.StatusCode != want {
			t.Errorf("HTTP/1.1 %s: %d %.200s", path, resp.StatusCode, body)
		}
	}
}
