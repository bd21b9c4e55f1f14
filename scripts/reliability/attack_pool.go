package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

// holdPassThrough opens n server streams of Hold through serve's gRPC
// pass-through, over one h2c connection, and holds them for hold.
func holdPassThrough(ctx context.Context, e *attackEnv, n int, hold time.Duration) string {
	before := e.upstream.calls.Load()
	conn, err := grpc.NewClient(e.serve.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return "no connection: " + err.Error()
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, hold)
	defer cancel()
	desc := &grpc.StreamDesc{ServerStreams: true}
	var mu sync.Mutex
	ended := map[codes.Code]int{} // streams that ended before the hold did
	var wg sync.WaitGroup
	opened := 0
	for range n {
		s, err := conn.NewStream(ctx, desc, "/"+probeService+"/Hold")
		if err != nil || s.SendMsg(&emptypb.Empty{}) != nil || s.CloseSend() != nil {
			continue
		}
		opened++
		wg.Go(func() {
			err := s.RecvMsg(&emptypb.Empty{})
			if ctx.Err() == nil {
				mu.Lock()
				ended[status.Code(err)]++
				mu.Unlock()
			}
		})
	}
	time.Sleep(time.Second)
	reached := e.upstream.calls.Load() - before
	<-ctx.Done()
	wg.Wait()
	got := "none ended before the end"
	if len(ended) > 0 {
		parts := []string{}
		for c, k := range ended {
			parts = append(parts, fmt.Sprintf("%s: %d", c, k))
		}
		slices.Sort(parts)
		got = "ended before the end: " + strings.Join(parts, ", ")
	}
	return fmt.Sprintf("%d streams opened; upstream calls in their first second: %d (the legitimate client's included); %s", opened, reached, got)
}

// holdREST sends n GETs of path at once over HTTP/1.1, each on its own
// connection, and holds them for hold (they answer only when cancelled).
func holdREST(ctx context.Context, e *attackEnv, path string, n int, hold time.Duration) string {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	defer client.CloseIdleConnections()
	return holdN(ctx, e, "requests", n, hold, func(ctx context.Context) int { return get(ctx, client, e.serve.url(path)) })
}

// holdBodies sends n POSTs of path at once over HTTP/1.1, each on its
// own connection, whose bodies send one message ({}) and then stay open
// for hold: a client or bidirectional stream the client never ends.
func holdBodies(ctx context.Context, e *attackEnv, path string, n int, hold time.Duration) string {
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	return holdN(ctx, e, "requests", n, hold, func(ctx context.Context) int {
		code, _ := postOpen(ctx, client, e.serve.url(path))
		return code
	})
}

// postOpen POSTs to url a body that sends one message ({}) and stays
// open until ctx ends: 0 and "" if held until then, else the status and
// the answer spelled.
func postOpen(ctx context.Context, client *http.Client, url string) (int, string) {
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte("{}\n"))
		<-ctx.Done()
		pw.Close()
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, pr)
	if err != nil {
		return 0, ""
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, ""
	}
	defer res.Body.Close()
	return res.StatusCode, retryAnswer(res)
}

// holdWebSockets opens n WebSockets on path at once and holds them for
// hold; a refused handshake counts as its status.
func holdWebSockets(ctx context.Context, e *attackEnv, path string, n int, hold time.Duration) string {
	return holdN(ctx, e, "WebSockets", n, hold, func(ctx context.Context) int {
		code, _ := openWebSocket(ctx, "ws://"+e.serve.addr+path)
		return code
	})
}

// openWebSocket opens a WebSocket to url and holds it until ctx ends (0),
// or returns the handshake's refusal: its status and its answer spelled.
func openWebSocket(ctx context.Context, url string) (int, string) {
	c, resp, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		if resp != nil {
			return resp.StatusCode, retryAnswer(resp)
		}
		return 0, err.Error()
	}
	defer c.CloseNow()
	<-ctx.Done()
	return 0, ""
}

// holdN runs call n times at once, each with a context that ends after
// hold, and says how many upstream calls their first second made and
// what those answered before the end got (a call returns 0 when it was
// held to the end).
func holdN(ctx context.Context, e *attackEnv, what string, n int, hold time.Duration, call func(context.Context) int) string {
	before := e.upstream.calls.Load()
	ctx, cancel := context.WithTimeout(ctx, hold)
	defer cancel()
	var reached int64
	time.AfterFunc(time.Second, func() { atomic.StoreInt64(&reached, e.upstream.calls.Load()-before) })
	statuses := atOnce(n, func() int { return call(ctx) })
	delete(statuses, 0) // held to the end, cut by it
	answered := "none answered before the end"
	if len(statuses) > 0 {
		answered = "answered before the end: " + statusText(statuses)
	}
	return fmt.Sprintf("%d %s; upstream calls in their first second: %d (the legitimate client's included); %s", n, what, atomic.LoadInt64(&reached), answered)
}
