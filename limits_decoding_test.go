package protorest_test

import (
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// valueList is a CreateProbe body whose val is a JSON list of n zeros:
// 2n bytes that decode to n google.protobuf.Value messages.
func valueList(n int) string {
	return `{"val":[` + strings.Repeat("0,", n-1) + `0]}`
}

// holdingProbes answers CreateProbe after hold, keeping no request once
// answered (the recorder's list is emptied), and tells started of each
// call.
func holdingProbes(hold time.Duration, started chan<- struct{}) *recorder {
	rec := &recorder{}
	rec.reply = func(string, proto.Message) (proto.Message, error) {
		rec.mu.Lock()
		rec.calls = nil
		rec.mu.Unlock()
		if started != nil {
			started <- struct{}{}
		}
		time.Sleep(hold)
		return &confv1.Probe{Name: "ok"}, nil
	}
	return rec
}

// post sends body to POST /v1/probes over HTTP/1.1 and returns the
// status and the Retry-After header.
func post(t *testing.T, client *http.Client, url, body string) (int, string) {
	t.Helper()
	resp, err := client.Post(url+"/v1/probes", "application/json", strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// TestDecodingBudget: a request body holds its bytes and what decoding
// it holds (96 bytes a JSON value) of WithMaxDecodingBytes until its call
// ends; another that finds no room waits WithBufferedResponseWait, then
// gets 503 with Retry-After; a small body, which fits, is served
// meanwhile; the room comes back when the call ends.
func TestDecodingBudget(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 4)
	gw := newFixture(t, "A", holdingProbes(time.Second, started),
		protorest.WithMaxDecodingBytes(250<<20), // one body of 4 MB takes 196 MB
		protorest.WithBufferedResponseWait(50*time.Millisecond))
	srv := h2cServer(t, gw)
	big := valueList(2_000_000)
	first := make(chan int, 1)
	go func() { code, _ := post(t, srv.Client(), srv.URL, big); first <- code }()
	<-started
	start := time.Now()
	if code, retry := post(t, srv.Client(), srv.URL, big); code != 503 || retry != "1" {
		t.Errorf("no room: %d, Retry-After %q; want 503 and 1", code, retry)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Errorf("503 after %v, before the wait of 50ms", waited)
	}
	if code, _ := post(t, srv.Client(), srv.URL, valueList(1000)); code != 200 {
		t.Errorf("a small body while a large one holds the budget: %d", code)
	}
	if code := <-first; code != 200 {
		t.Errorf("the first large body: %d", code)
	}
	if code, _ := post(t, srv.Client(), srv.URL, big); code != 200 {
		t.Errorf("after the first call ended: %d", code)
	}
}

// TestDecodingBudgetSmallerThanBodies: a body larger than the whole
// budget, declared or chunked, goes alone: all of the budget, the rest
// read as it comes.
func TestDecodingBudgetSmallerThanBodies(t *testing.T) {
	t.Parallel()
	gw := newFixture(t, "A", holdingProbes(0, nil), protorest.WithMaxDecodingBytes(64<<10))
	srv := h2cServer(t, gw)
	body := valueList(100_000) // 200 KB, 9.6 MB to decode
	if code, _ := post(t, srv.Client(), srv.URL, body); code != 200 {
		t.Errorf("declared length: %d", code)
	}
	resp, err := srv.Client().Post(srv.URL+"/v1/probes", "application/json", struct{ io.Reader }{strings.NewReader(body)}) // no length: chunked
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("chunked: %d", resp.StatusCode)
	}
}

// TestDecodingBudgetMemoryBounded is issue 22's decoding bomb, CI-sized:
// 10 bodies at once, each a JSON list of 2,000,000 google.protobuf.Value
// (4 MB, about 200 MB at its peak once decoded), to a method that takes
// 200 ms. Each takes 196 MB, more than the default budget of 128 MiB: it
// goes alone, the others (holding their bytes while they wait for the
// rest) get 503 after the wait of 1 s unless their turn came, and the
// heap grows by no more than one of them and a margin (before: all 10
// at once).
func TestDecodingBudgetMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	if raceEnabled {
		t.Skip("measures the heap, which the race detector bloats")
	}
	const (
		bodies = 10
		one    = 2_000_000*96 + 4_000_010 + 16<<10 // what a body takes: alone
		margin = 32 << 20
	)
	gw := newFixture(t, "A", holdingProbes(200*time.Millisecond, nil))
	srv := h2cServer(t, gw)
	big := valueList(2_000_000)
	if code, _ := post(t, srv.Client(), srv.URL, big); code != 200 { // warm up: the plans, the pools
		t.Fatalf("warm-up: %d", code)
	}
	// A low GC target keeps the garbage of the decodings from hiding
	// what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	before := liveHeap()
	peak := sampleHeap()
	var wg sync.WaitGroup
	codes := make([]int, bodies)
	for i := range bodies {
		wg.Go(func() { codes[i], _ = post(t, srv.Client(), srv.URL, big) })
	}
	wg.Wait()
	grown := int64(peak()) - int64(before)
	n := map[int]int{}
	for _, c := range codes {
		n[c]++
	}
	t.Logf("%d bodies of a 2M-element Value list, the default budget: statuses %v, heap +%.1f MB at its peak", bodies, n, float64(grown)/1e6)
	if n[200]+n[503] != bodies || n[200] < 1 {
		t.Errorf("statuses %v: want 200 or 503 each, at least one 200", n)
	}
	if grown > one+margin {
		t.Errorf("the heap grew by %d bytes at its peak, more than one body's %d and a %d margin", grown, one, margin)
	}
}
