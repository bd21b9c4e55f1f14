package protorest_test

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// budgetWatch serves Watch with one message shared by every call (a
// probe named "large" with a blob; for the name "small", a small probe),
// sent req.i32 times, or until the stream fails when i32 is 0. Sharing
// it leaves a stream holding only what rendering and writing it cost.
// It keeps how each call ended, by name.
type budgetWatch struct {
	confv1.UnimplementedProbesServer
	large *confv1.Probe

	mu   sync.Mutex
	ends map[string]error
}

func newBudgetWatch(blob int) *budgetWatch {
	return &budgetWatch{large: &confv1.Probe{Name: "large", Blob: make([]byte, blob)}, ends: map[string]error{}}
}

func (w *budgetWatch) Watch(req *confv1.Probe, stream grpc.ServerStreamingServer[confv1.Probe]) error {
	msg := w.large
	if req.GetName() == "small" {
		msg = &confv1.Probe{Name: "small"}
	}
	var err error
	for i := 0; err == nil && (req.GetI32() == 0 || i < int(req.GetI32())); i++ {
		err = stream.Send(msg)
	}
	w.mu.Lock()
	w.ends[req.GetName()] = err
	w.mu.Unlock()
	return err
}

// ended reports whether the call named name has ended, and how.
func (w *budgetWatch) ended(name string) (error, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	err, ok := w.ends[name]
	return err, ok
}

// endings counts the calls that have ended, by the code of their error.
func (w *budgetWatch) endings() map[codes.Code]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := map[codes.Code]int{}
	for _, err := range w.ends {
		n[status.Code(err)]++
	}
	return n
}

// busyReason is the reason of the close of a WebSocket whose message
// found no room in the budget (4000 + UNAVAILABLE).
const busyReason = "too many responses in flight: try again"

// wsLarge streams one large message over a WebSocket from srv, and says
// how it went: "ok" (the message, then close 1000), "busy" (close 4014
// with the budget's reason, and no message), or what else happened; and
// how long it took.
func wsLarge(t *testing.T, srv string, w *budgetWatch) (string, time.Duration) {
	t.Helper()
	start := time.Now()
	c := wsDial(t, srv+"/v1/watch/one?i32=1", nil)
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	_, msg, err := wsRead(t, c)
	var ce websocket.CloseError
	switch {
	case errorAs(err, &ce) && ce.Code == 4000+websocket.StatusCode(codes.Unavailable) && ce.Reason == busyReason:
		return "busy", time.Since(start)
	case err != nil:
		return "error " + err.Error(), time.Since(start)
	case !strings.HasPrefix(msg, `{"name":"large","blob":"`) || len(msg) < 4*len(w.large.Blob)/3:
		return "message " + msg[:min(len(msg), 50)], time.Since(start)
	}
	_, _, err = wsRead(t, c)
	if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		return "after the message: " + err.Error(), time.Since(start)
	}
	return "ok", time.Since(start)
}

// The budget of the WebSocket budget tests: room for one large message
// (100 KiB of JSON) held, not for a second one's rendering.
const (
	wsLargeBlob  = 75 << 10
	wsBudget     = 150 << 10
	wsBudgetWait = 100 * time.Millisecond
)

// budgetServer serves a budgetWatch (kind "in-process" or "remote") under
// wsBudget, with writeTimeout as WithResponseWriteTimeout.
func budgetServer(t *testing.T, kind string, writeTimeout time.Duration) (*budgetWatch, string) {
	t.Helper()
	w := newBudgetWatch(wsLargeBlob)
	srv := httptest.NewServer(probesGateway(t, kind, w,
		protorest.WithMaxBufferedResponseBytes(wsBudget),
		protorest.WithBufferedResponseWait(wsBudgetWait),
		protorest.WithResponseWriteTimeout(writeTimeout)))
	t.Cleanup(srv.Close)
	return w, srv.URL
}

// stall starts a stream of large messages whose client never reads: it
// sends until the sockets between them are full, and its next message
// then holds its bytes. It returns the client once a large message finds
// no room beside it, and how long that message took to fail.
func stall(t *testing.T, url string, w *budgetWatch) (*websocket.Conn, time.Duration) {
	t.Helper()
	stalled := wsDial(t, url+"/v1/watch/stalled", nil)
	var got string
	var took time.Duration
	if !waitFor(10*time.Second, func() bool {
		got, took = wsLarge(t, url, w)
		return got == "busy"
	}) {
		t.Fatalf("a large message beside the stalled stream: %s, want close 4014 %q", got, busyReason)
	}
	return stalled, took
}

// TestWebSocketBufferedResponseBudget: a WebSocket message over 64 KiB
// holds its bytes against WithMaxBufferedResponseBytes until it is
// written to the socket. A client that stops reading keeps them: another
// stream's large message waits WithBufferedResponseWait for room, then
// ends its stream with close 4014 (4000 + UNAVAILABLE) and the budget's
// message. Messages up to 64 KiB are never counted.
func TestWebSocketBufferedResponseBudget(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"in-process", "remote"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			w, url := budgetServer(t, kind, 0)
			_, took := stall(t, url, w)
			if took < wsBudgetWait {
				t.Errorf("close 4014 after %v, before the wait of %v", took, wsBudgetWait)
			}
			if err, _ := w.ended("one"); kind == "in-process" && status.Code(err) != codes.Unavailable {
				t.Errorf("the method's Send returned %v, want UNAVAILABLE", err)
			}

			small := wsDial(t, url+"/v1/watch/small?i32=3", nil)
			for i := range 3 {
				if _, msg, err := wsRead(t, small); err != nil || msg != `{"name":"small"}` {
					t.Fatalf("small message %d while the budget is full: %q %v", i, msg, err)
				}
			}
			wsClosed(t, small, websocket.StatusNormalClosure, "")

			if _, ok := w.ended("stalled"); ok {
				t.Fatal("the stalled stream ended with WithResponseWriteTimeout(0)")
			}
		})
	}
}

// TestWebSocketBudgetGivenBack: the bytes a stalled WebSocket holds come
// back when its client leaves, or, without the client leaving, when
// WithResponseWriteTimeout passes: the connection is then cut (no close
// frame: the client gets what was sent, then the end of the stream).
func TestWebSocketBudgetGivenBack(t *testing.T) {
	t.Parallel()
	t.Run("client leaves", func(t *testing.T) {
		t.Parallel()
		w, url := budgetServer(t, "in-process", 0)
		stalled, _ := stall(t, url, w)
		stalled.CloseNow()
		if !waitFor(5*time.Second, func() bool { got, _ := wsLarge(t, url, w); return got == "ok" }) {
			t.Error("the budget was not given back when the stalled client left")
		}
	})

	t.Run("write timeout", func(t *testing.T) {
		t.Parallel()
		const writeTimeout = 200 * time.Millisecond
		w, url := budgetServer(t, "in-process", writeTimeout)
		start := time.Now()
		stalled := wsDial(t, url+"/v1/watch/stalled", nil)
		stalled.SetReadLimit(1 << 20)
		var err error
		if !waitFor(10*time.Second, func() (ok bool) { err, ok = w.ended("stalled"); return ok }) {
			t.Fatal("the stalled stream did not end at the write timeout")
		}
		if took := time.Since(start); took < writeTimeout || status.Code(err) != codes.Canceled {
			t.Errorf("the stalled stream ended after %v with %v, want CANCELLED after the write timeout of %v", took, err, writeTimeout)
		}
		if got, _ := wsLarge(t, url, w); got != "ok" {
			t.Errorf("a large message after the write timeout: %s", got)
		}
		// The client, reading at last, gets what was sent, then no close.
		for n := 0; ; n++ {
			if n == 1000 {
				t.Fatal("the stalled stream goes on: not cut")
			}
			if _, _, err := wsRead(t, stalled); err != nil {
				if code := websocket.CloseStatus(err); code != -1 {
					t.Errorf("after %d messages, close %d; want the connection cut", n, code)
				}
				break
			}
		}
	})
}

// TestStalledWebSocketReadersMemoryBounded is
// TestStalledReadersMemoryBounded over WebSockets: 50 clients of a
// stream of 2.5 MB messages (one message, shared by every stream) that
// never read. When WebSocket messages did not count against the budget,
// each stream's blocked write held its message's JSON: the live heap
// grew by 130 MB. With a budget of 16 MiB at most six hold theirs (four
// here: a fifth finds too little room to render), the others end with
// UNAVAILABLE (close 4014) as their message finds no room, and the live
// heap grows by no more than the budget and a margin of 4 MiB, for the
// connections: both ends of each are in this process, 35 KiB a
// connection besides the messages (1.7 MB).
func TestStalledWebSocketReadersMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	if raceEnabled {
		t.Skip("measures the heap, which the race detector bloats")
	}
	const (
		clients = 50
		budget  = 16 << 20
		margin  = 4 << 20
		body    = 2500 << 10 // each message's JSON
		wait    = 100 * time.Millisecond
	)
	w := newBudgetWatch(body * 3 / 4)
	srv := httptest.NewServer(probesGateway(t, "in-process", w,
		protorest.WithMaxBufferedResponseBytes(budget),
		protorest.WithBufferedResponseWait(wait),
		protorest.WithResponseWriteTimeout(0)))
	t.Cleanup(srv.Close)
	before := settledHeap()
	for i := range clients {
		wsDial(t, srv.URL+"/v1/watch/s"+strconv.Itoa(i), nil)
	}
	// Settled: at most as many streams left as the budget holds
	// messages, each blocked in its write, and no more ending (a stream
	// waiting for room ends within the wait); the others have ended.
	const holding = budget / body
	ended, since := 0, time.Now()
	settled := waitFor(30*time.Second, func() bool {
		n := 0
		for _, k := range w.endings() {
			n += k
		}
		if n != ended {
			ended, since = n, time.Now()
		}
		return n >= clients-holding && time.Since(since) > 3*wait
	})
	grown := int64(liveHeap()) - int64(before)
	ends := w.endings()
	held := int64(clients-ends[codes.Unavailable]) * body
	t.Logf("%d WebSocket clients that never read 2.5 MB messages, budget 16 MiB: streams ended %v, live heap +%.1f MB (%.1f MB in the blocked writes, %.1f KiB a connection besides)",
		clients, ends, float64(grown)/1e6, float64(held)/1e6, float64(grown-held)/clients/1024)
	if !settled || ends[codes.Unavailable] < clients-holding || len(ends) != 1 {
		t.Errorf("streams ended %v: want at least %d UNAVAILABLE, and no other ending", ends, clients-holding)
	}
	if grown > budget+margin {
		t.Errorf("the live heap grew by %d bytes, more than the budget of %d and a margin of %d", grown, budget, margin)
	}
}

// settledHeap is the live heap once what earlier tests left behind has
// gone (a stalled stream of theirs still unwinding holds megabytes): it
// stops falling between collections 50 ms apart, or 2 s have passed.
func settledHeap() uint64 {
	h := liveHeap()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
		next := liveHeap()
		if next+256<<10 >= h {
			return next
		}
		h = next
	}
	return h
}
