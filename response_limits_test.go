package protorest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/api/httpbody"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// largeReplies answers GetProbe and Download with responses of about
// size bytes: name "tags" a list of strings, name "blob" a bytes field
// (JSON: base64, a third larger), Download raw bytes; any other name a
// small probe.
func largeReplies(size int) *recorder {
	tags := &confv1.Probe{Name: "tags"}
	for i := 0; i < size/10; i++ {
		tags.Tags = append(tags.Tags, "tag-"+strconv.Itoa(i%100000))
	}
	blob := &confv1.Probe{Name: "blob", Blob: make([]byte, size)}
	raw := &httpbody.HttpBody{ContentType: "application/octet-stream", Data: make([]byte, size)}
	return &recorder{reply: func(method string, req proto.Message) (proto.Message, error) {
		switch name := req.(*confv1.Probe).GetName(); {
		case method == "Download":
			return raw, nil
		case name == "tags":
			return tags, nil
		case name == "blob":
			return blob, nil
		}
		return &confv1.Probe{Name: "small"}, nil
	}}
}

// wantTooLarge checks that r is exactly the 500 "response too large"
// error: a google.rpc.Status with code INTERNAL, and nothing of the
// response before or after it.
func wantTooLarge(t *testing.T, what string, code int, contentType, body string, limit string) {
	t.Helper()
	var st spb.Status
	if err := protojson.Unmarshal([]byte(body), &st); err != nil || code != 500 || contentType != "application/json" {
		t.Errorf("%s: %d %s %.200q (%v), want 500 and a google.rpc.Status", what, code, contentType, body, err)
		return
	}
	if want := "response too large: larger than the limit of " + limit; codes.Code(st.Code) != codes.Internal || st.Message != want {
		t.Errorf("%s: status %v %q, want INTERNAL %q", what, codes.Code(st.Code), st.Message, want)
	}
}

// TestResponseTooLarge: a response over the limit (4 MiB by default) is
// a 500 INTERNAL "response too large" Status, with no part of the
// response, in JSON and binary, for messages and google.api.HttpBody; a
// response at the limit is whole. WithMaxResponseBytes moves the limit.
func TestResponseTooLarge(t *testing.T) {
	t.Parallel()
	gw := newFixture(t, "A", largeReplies(5<<20))
	for _, target := range []string{"/v1/probes/tags", "/v1/probes/blob", "/v1/download/x"} {
		for _, accept := range []string{"application/json", "application/proto"} {
			r := do(t, gw, "GET", target, "", "Accept", accept)
			wantTooLarge(t, target+" "+accept, r.code, r.header.Get("Content-Type"), r.body, "4 MiB")
		}
	}
	if r := do(t, gw, "GET", "/v1/probes/small", ""); r.code != 200 {
		t.Errorf("a small response: %d %.200s", r.code, r.body)
	}

	// At the limit, whole; a byte over, refused.
	whole := do(t, newFixture(t, "A", largeReplies(50<<10)), "GET", "/v1/probes/tags", "")
	if whole.code != 200 {
		t.Fatalf("no limit: %d %.200s", whole.code, whole.body)
	}
	n := len(whole.body)
	for _, tt := range []struct {
		limit int
		code  int
	}{{n, 200}, {n - 1, 500}, {0, 200}} {
		gw := newFixture(t, "A", largeReplies(50<<10), protorest.WithMaxResponseBytes(tt.limit))
		for _, accept := range []string{"application/json", "application/proto"} {
			r := do(t, gw, "GET", "/v1/probes/tags", "", "Accept", accept)
			if accept == "application/json" && r.code != tt.code || tt.code == 200 && r.code != 200 {
				t.Errorf("WithMaxResponseBytes(%d), a %d-byte response, %s: %d %.100s", tt.limit, n, accept, r.code, r.body)
			}
			if tt.code == 200 && accept == "application/json" && r.body != whole.body {
				t.Errorf("WithMaxResponseBytes(%d): the response differs", tt.limit)
			}
		}
	}
	r := do(t, newFixture(t, "A", largeReplies(50<<10), protorest.WithMaxResponseBytes(n-1)), "GET", "/v1/probes/tags", "")
	wantTooLarge(t, "a byte over", r.code, r.header.Get("Content-Type"), r.body, strconv.Itoa(n-1)+" bytes")
}

// TestRemoteResponseTooLarge: a backend's reply over the limit (5 MiB,
// received under a 64 MiB receive limit, as protorest serve sets it) is a
// 500 "response too large", whether it is transcoded from its wire bytes
// to JSON or passed through as binary.
func TestRemoteResponseTooLarge(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer(grpc.MaxSendMsgSize(64 << 20))
	srv.RegisterService(serviceDesc(t, "conf.v1.Probes", largeReplies(5<<20)), nil)
	conn, err := grpc.NewClient(serveGRPC(t, srv), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	gw := protorest.NewGateway()
	if err := gw.RegisterRemote(context.Background(), conn, protorest.WithRemoteFiles(protoregistry.GlobalFiles, "conf.v1.Probes")); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"/v1/probes/tags", "/v1/probes/blob", "/v1/download/x"} {
		for _, accept := range []string{"application/json", "application/proto"} {
			r := do(t, gw, "GET", target, "", "Accept", accept)
			wantTooLarge(t, "remote "+target+" "+accept, r.code, r.header.Get("Content-Type"), r.body, "4 MiB")
		}
	}
	if r := do(t, gw, "GET", "/v1/probes/small", ""); r.code != 200 || !strings.Contains(r.body, `"name":"small"`) {
		t.Errorf("a small remote response: %d %.200s", r.code, r.body)
	}
}

// oversizedWatch sends a small message, then one over the limit.
type oversizedWatch struct {
	confv1.UnimplementedProbesServer
}

func (oversizedWatch) Watch(_ *confv1.Probe, stream grpc.ServerStreamingServer[confv1.Probe]) error {
	if err := stream.Send(&confv1.Probe{Name: "small"}); err != nil {
		return err
	}
	return stream.Send(&confv1.Probe{Name: "big", Blob: make([]byte, 5<<20)})
}

// heedlessWatch sends a message over the limit between two small ones,
// paying no heed to the error of the one that fails.
type heedlessWatch struct {
	confv1.UnimplementedProbesServer
}

func (heedlessWatch) Watch(_ *confv1.Probe, stream grpc.ServerStreamingServer[confv1.Probe]) error {
	stream.Send(&confv1.Probe{Name: "small"})
	stream.Send(&confv1.Probe{Name: "big", Blob: make([]byte, 5<<20)})
	stream.Send(&confv1.Probe{Name: "after"})
	return nil
}

// TestStreamMessageTooLarge: a server stream's message over the limit
// ends the stream with the "response too large" error, in-band after the
// messages before it; so it does when the method pays no heed to the
// error and goes on sending and returns OK: the client never sees a
// stream with a message missing from it.
func TestStreamMessageTooLarge(t *testing.T) {
	t.Parallel()
	for name, impl := range map[string]confv1.ProbesServer{"returns the error": oversizedWatch{}, "heedless": heedlessWatch{}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			gw := protorest.NewGateway()
			confv1.RegisterProbesServer(gw, impl)
			r := do(t, gw, "GET", "/v1/watch/w", "")
			lines := strings.Split(strings.TrimSpace(r.body), "\n")
			if r.code != 200 || len(lines) != 2 || !strings.HasPrefix(lines[0], `{"result":{"name":"small"`) ||
				lines[1] != `{"error":{"code":13,"message":"response too large: larger than the limit of 4 MiB","details":[]}}` {
				t.Errorf("%d, %d bytes: %.300s", r.code, len(r.body), r.body)
			}
		})
	}
}

// h2cServer serves h over HTTP/1.1 and HTTP/2 with prior knowledge.
func h2cServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

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

// TestBufferedResponseBudget: a response over 64 KiB holds its bytes
// against WithMaxBufferedResponseBytes while a client fails to read it;
// another that finds no room gets, after WithBufferedResponseWait, 503
// UNAVAILABLE with Retry-After; the bytes come back when the stalled
// client leaves, or when WithResponseWriteTimeout resets its stream.
// Responses up to 64 KiB are never counted.
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
