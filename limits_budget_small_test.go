package protorest_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
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
// for room (4: the share has room for 16 KiB four times; the rest are
// refused at once), get
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

// TestWriteTimeoutReleasesZeroWindowStreams: 2,000 HTTP/2 streams (20
// connections of 100) whose window never opens, each on a 58 KB unary
// answer, are all reset by the server within the write timeout (and the
// budget's wait, for those that waited for room), and nothing they held
// stays: the goroutines are back to what they were, and a client that
// reads is served at once.
func TestWriteTimeoutReleasesZeroWindowStreams(t *testing.T) {
	t.Parallel()
	const (
		conns, perConn = 20, 100
		writeTimeout   = 500 * time.Millisecond
		wait           = 200 * time.Millisecond
	)
	gw := newFixture(t, "A", largeReplies(43000), // 58 KB of JSON
		protorest.WithBufferedResponseWait(wait),
		protorest.WithResponseWriteTimeout(writeTimeout))
	srv := newServerTest(t, gw)
	fetchAll(t, srv, "/v1/probes/blob") // plans warmed
	srv.Client().CloseIdleConnections()
	goroutines := runtime.NumGoroutine()

	start := time.Now()
	var clients []*stalledClient
	var ids [][]uint32
	for range conns {
		c := dialStalled(t, srv.Listener.Addr().String())
		var cids []uint32
		for range perConn {
			cids = append(cids, c.Get(t, "/v1/probes/blob"))
		}
		clients, ids = append(clients, c), append(ids, cids)
	}
	allReset := func() bool {
		for i, c := range clients {
			for _, id := range ids[i] {
				if _, ok := c.Reset(id); !ok {
					return false
				}
			}
		}
		return true
	}
	// Opening 2,000 streams takes a while on a loaded machine: the bound
	// is from the last one's request.
	opened := time.Since(start)
	if !waitFor(opened+writeTimeout+wait+10*time.Second, allReset) {
		t.Fatal("not every zero-window stream was reset")
	}
	var last time.Duration
	statuses := map[int]int{}
	for i, c := range clients {
		for _, id := range ids[i] {
			at, _ := c.Reset(id)
			last = max(last, at.Sub(start))
			statuses[c.Status(id)]++
		}
	}
	t.Logf("%d zero-window streams (opened in %v): statuses %v, the last reset %v after the first request", conns*perConn, opened, statuses, last)
	// Each answer is held (200) within its connection's share, or waits
	// for room and gets 503, or is reset before its headers went out
	// (status 0, on a loaded machine).
	if statuses[200]+statuses[503]+statuses[0] != conns*perConn || statuses[200] == 0 {
		t.Errorf("statuses %v", statuses)
	}
	if bound := opened + writeTimeout + wait + 2*time.Second; last > bound {
		t.Errorf("the last stream was reset %v after the first request, past %v", last, bound)
	}
	for _, c := range clients {
		c.Close()
	}
	if !waitFor(10*time.Second, func() bool { return runtime.NumGoroutine() <= goroutines+5 }) {
		t.Errorf("%d goroutines after the streams were reset and their clients left, %d before", runtime.NumGoroutine(), goroutines)
	}
	begin := time.Now()
	if resp, body := fetchAll(t, srv, "/v1/probes/blob"); resp.StatusCode != 200 || time.Since(begin) > time.Second {
		t.Errorf("after the streams were released: %d after %v %.200s", resp.StatusCode, time.Since(begin), body)
	}
}

// TestConnShareReadingClient: a client that reads, asking for 30
// responses of 100 KB at once on one HTTP/2 connection, gets all 30 with
// the defaults: past its connection's share of 512 KiB they wait their
// turn (up to 32 of them). (When a connection could have only its
// share's worth of bytes waiting, most got 503 at once.)
func TestConnShareReadingClient(t *testing.T) {
	t.Parallel()
	gw := newFixture(t, "A", largeReplies(75<<10)) // 100 KB of JSON
	srv := newServerTest(t, gw)
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, Timeout: 20 * time.Second}
	var wg sync.WaitGroup
	for range 30 {
		wg.Go(func() { fetchAll200(t, client, srv.URL+"/v1/probes/blob") }) // fails the test unless 200
	}
	wg.Wait()
}
