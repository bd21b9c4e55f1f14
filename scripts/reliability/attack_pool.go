package main

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
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
	opened := 0
	desc := &grpc.StreamDesc{ServerStreams: true}
	for range n {
		s, err := conn.NewStream(ctx, desc, "/"+probeService+"/Hold")
		if err != nil {
			continue
		}
		if s.SendMsg(&emptypb.Empty{}) == nil && s.CloseSend() == nil {
			opened++
		}
	}
	time.Sleep(time.Second)
	reached := e.upstream.calls.Load() - before
	<-ctx.Done()
	return fmt.Sprintf("%d streams opened; upstream calls in their first second: %d (the legitimate client's included)", opened, reached)
}

// holdREST sends n GETs of path at once over HTTP/1.1, each on its own
// connection, and holds them for hold (they answer only when cancelled).
func holdREST(ctx context.Context, e *attackEnv, path string, n int, hold time.Duration) string {
	before := e.upstream.calls.Load()
	ctx, cancel := context.WithTimeout(ctx, hold)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	defer client.CloseIdleConnections()
	var reached int64
	time.AfterFunc(time.Second, func() { atomic.StoreInt64(&reached, e.upstream.calls.Load()-before) })
	statuses := atOnce(n, func() int { return get(ctx, client, e.serve.url(path)) })
	delete(statuses, 0) // held to the end, cut by it
	answered := "none answered before the end"
	if len(statuses) > 0 {
		answered = "answered before the end: " + statusText(statuses)
	}
	return fmt.Sprintf("%d requests; upstream calls in their first second: %d (the legitimate client's included); %s", n, atomic.LoadInt64(&reached), answered)
}
