package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

// holdProto is the upstream of the pool's tests: a unary call answered at
// once, and one of each kind that holds until cancelled (a client or
// bidirectional stream reads until its client ends it).
const holdProto = `syntax = "proto3";
package hold.v1;
import "google/api/annotations.proto";
import "google/protobuf/empty.proto";
service Hold {
  rpc Ping(google.protobuf.Empty) returns (google.protobuf.Empty) { option (google.api.http) = {get: "/v1/ping"}; }
  rpc Sleep(google.protobuf.Empty) returns (google.protobuf.Empty) { option (google.api.http) = {get: "/v1/sleep"}; }
  rpc Watch(google.protobuf.Empty) returns (stream google.protobuf.Empty) { option (google.api.http) = {get: "/v1/watch"}; }
  rpc Collect(stream google.protobuf.Empty) returns (google.protobuf.Empty) { option (google.api.http) = {post: "/v1/collect" body: "*"}; }
  rpc Talk(stream google.protobuf.Empty) returns (stream google.protobuf.Empty) { option (google.api.http) = {post: "/v1/talk" body: "*"}; }
}
`

// holdUpstream serves holdProto's service (no generated code: one
// handler) with grpc-go limited to maxStreams streams a connection, and
// counts the calls it holds.
type holdUpstream struct {
	addr string
	held atomic.Int64
}

func startHoldUpstream(t *testing.T, maxStreams uint32) *holdUpstream {
	t.Helper()
	u := new(holdUpstream)
	u.addr = serveGRPC(t, grpc.NewServer(grpc.MaxConcurrentStreams(maxStreams), grpc.UnknownServiceHandler(u.handle)))
	return u
}

func (u *holdUpstream) handle(_ any, ss grpc.ServerStream) error {
	method, _ := grpc.MethodFromServerStream(ss)
	ctx := ss.Context()
	switch strings.TrimPrefix(method, "/hold.v1.Hold/") {
	case "Ping":
		if err := ss.RecvMsg(new(emptypb.Empty)); err != nil {
			return err
		}
		return ss.SendMsg(new(emptypb.Empty))
	case "Sleep", "Watch":
		u.held.Add(1)
		defer u.held.Add(-1)
		<-ctx.Done()
		return status.FromContextError(ctx.Err()).Err()
	case "Collect", "Talk":
		u.held.Add(1)
		defer u.held.Add(-1)
		for {
			if err := ss.RecvMsg(new(emptypb.Empty)); err != nil {
				return err
			}
		}
	}
	return status.Error(codes.Unimplemented, method)
}

// holdServe runs serve in front of u, with args.
func holdServe(t *testing.T, u *holdUpstream, args ...string) *served {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hold.proto"), []byte(holdProto), 0o644); err != nil {
		t.Fatal(err)
	}
	return startServe(t, append([]string{"--upstream", u.addr, "--import-path", dir, "--proto", "hold.proto", "--access-log=false"}, args...)...)
}

// A holdClass opens one call of a class through serve at base, held
// until ctx ends; it returns the answer's status if one came within
// 300 ms (a refusal), else 0.
type holdClass struct {
	name string
	open func(ctx context.Context, t *testing.T, base string) int
}

// holdHTTP sends method path with, when first is not empty, a body that
// begins with first and stays open until ctx ends, on a connection of
// its own.
func holdHTTP(ctx context.Context, t *testing.T, method, url, first string) int {
	t.Helper()
	var body io.Reader
	if first != "" {
		pr, pw := io.Pipe()
		go func() {
			pw.Write([]byte(first))
			<-ctx.Done()
			pw.Close()
		}()
		body = pr
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	answered := make(chan int, 1)
	go func() {
		resp, err := client.Do(req)
		if err != nil {
			answered <- -1
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	select {
	case code := <-answered:
		return code
	case <-time.After(300 * time.Millisecond):
		return 0
	}
}

var holdClasses = []holdClass{
	{"unary", func(ctx context.Context, t *testing.T, base string) int {
		return holdHTTP(ctx, t, "GET", base+"/v1/sleep", "")
	}},
	{"server stream", func(ctx context.Context, t *testing.T, base string) int {
		return holdHTTP(ctx, t, "GET", base+"/v1/watch", "")
	}},
	{"client stream", func(ctx context.Context, t *testing.T, base string) int {
		return holdHTTP(ctx, t, "POST", base+"/v1/collect", "{}\n")
	}},
	{"bidi stream", func(ctx context.Context, t *testing.T, base string) int {
		return holdHTTP(ctx, t, "POST", base+"/v1/talk", "{}\n")
	}},
	{"WebSocket", func(ctx context.Context, t *testing.T, base string) int {
		c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/v1/watch", nil)
		if err != nil {
			if resp != nil {
				return resp.StatusCode
			}
			return -1
		}
		context.AfterFunc(ctx, func() { c.CloseNow() })
		return 0
	}},
	{"gRPC proxy", func(ctx context.Context, t *testing.T, base string) int {
		conn, err := grpc.NewClient(strings.TrimPrefix(base, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		context.AfterFunc(ctx, func() { conn.Close() })
		s, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, "/hold.v1.Hold/Watch")
		if err == nil {
			err = s.SendMsg(new(emptypb.Empty))
		}
		if err == nil {
			err = s.CloseSend()
		}
		got := make(chan error, 1)
		go func() { got <- s.RecvMsg(new(emptypb.Empty)) }()
		select {
		case err = <-got:
		case <-time.After(300 * time.Millisecond):
			return 0 // held
		}
		if status.Code(err) == codes.Unavailable {
			return http.StatusServiceUnavailable
		}
		return -1
	}},
}

// TestUpstreamPoolHeldStreams is issue 22's upstream pool, CI-sized:
// against a grpc-go upstream that allows 10 streams a connection, serve
// with --upstream-max-streams 10 (and 8 connections, the default) holds
// 10 calls of each class at once, 60 in all; an 11th of each class of
// long calls gets 503 (UNAVAILABLE through the gRPC proxy) at once; and
// unary calls are still served, each within a second. Unary calls that
// fill the pool's 80 streams leave the next a 503 at once, not a wait;
// once the held calls end, the upstream holds none.
func TestUpstreamPoolHeldStreams(t *testing.T) {
	t.Parallel()
	u := startHoldUpstream(t, 10)
	s := holdServe(t, u, "--upstream-max-streams", "10")
	ctx, release := context.WithCancel(t.Context())
	defer release()
	hold := func(c holdClass, n int) {
		t.Helper()
		codes := atOnce(n, func() int { return c.open(ctx, t, s.url) })
		if codes[0] != n {
			t.Fatalf("%d calls of %s: answered %v, want all held", n, c.name, codes)
		}
	}
	held := func(n int64) {
		t.Helper()
		eventually(t, 10*time.Second, strconv.FormatInt(n, 10)+" calls held at the upstream", func() (bool, string) {
			got := u.held.Load()
			return got == n, strconv.FormatInt(got, 10)
		})
	}
	for _, c := range holdClasses {
		hold(c, 10)
	}
	held(60)
	for _, c := range holdClasses[1:] {
		start := time.Now()
		if code := c.open(t.Context(), t, s.url); code != http.StatusServiceUnavailable {
			t.Errorf("an 11th %s: %d, want 503", c.name, code)
		}
		if took := time.Since(start); took > 250*time.Millisecond {
			t.Errorf("an 11th %s: refused after %v", c.name, took)
		}
	}
	client := &http.Client{Timeout: 5 * time.Second}
	ping := func() (int, string, time.Duration) {
		start := time.Now()
		resp, err := client.Get(s.url + "/v1/ping")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Retry-After") + " " + string(body), time.Since(start)
	}
	var took []time.Duration
	for range 20 {
		code, body, d := ping()
		if code != 200 {
			t.Fatalf("a unary call with 60 held: %d %s", code, body)
		}
		took = append(took, d)
	}
	if slowest := slices.Max(took); slowest > time.Second {
		t.Errorf("unary calls with 60 held: the slowest took %v", slowest)
	}

	hold(holdClasses[0], 20) // unary calls, to the pool's 80 streams
	held(80)
	code, body, d := ping()
	const busy = `1 {"code":14,"message":"the upstream is busy: every connection to it is at its limit of concurrent streams","details":[]}`
	if code != http.StatusServiceUnavailable || body != busy || d > 250*time.Millisecond {
		t.Errorf("a unary call with the pool full: %d %q after %v; want 503 %q at once", code, body, d, busy)
	}
	release()
	held(0)
}

// atOnce runs f n times at once and counts what the runs return.
func atOnce(n int, f func() int) map[int]int {
	counts := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			k := f()
			mu.Lock()
			counts[k]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return counts
}

// TestUpstreamPoolDefaults: the caps follow the pool's flags: all of it
// for unary calls, an eighth for each class of long calls; a flag of its
// own wins; with no stream limit, no caps.
func TestUpstreamPoolDefaults(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want classCaps
	}{
		{nil, classCaps{800, 100, 100, 100, 100, 100}},
		{[]string{"--upstream-connections", "2", "--upstream-max-streams", "10"}, classCaps{20, 2, 2, 2, 2, 2}},
		{[]string{"--upstream-connections", "1", "--upstream-max-streams", "4"}, classCaps{4, 1, 1, 1, 1, 1}},
		{[]string{"--upstream-max-streams", "0"}, classCaps{}},
		{[]string{"--max-websockets", "7", "--max-unary-calls", "0"}, classCaps{0, 100, 100, 100, 7, 100}},
	} {
		c, err := parseServeFlags(append([]string{"--upstream", "u:1"}, tt.args...), envOf(nil), io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if got := c.classCaps(); got != tt.want {
			t.Errorf("%v: %+v, want %+v", tt.args, got, tt.want)
		}
	}
}
