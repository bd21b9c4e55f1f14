package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

// h2c is a client of the cap probes: HTTP/2 with prior knowledge, so
// that each held call takes a stream rather than a connection.
var h2c = h2cClient()

// capProbes breach the caps on calls at once of each class: as many calls
// of the class as the default allows are held, then one more is sent.
var capProbes = map[string]limitProbe{
	"max-unary-calls": capProbe("unary calls (GET /v1/sleep, h2c)", func(ctx context.Context, s *serveProc) (int, string) {
		return getAnswer(ctx, h2c, s.url("/v1/sleep"))
	}),
	"max-server-streams": capProbe("server streams (GET /v1/hold, h2c)", func(ctx context.Context, s *serveProc) (int, string) {
		return getAnswer(ctx, h2c, s.url("/v1/hold"))
	}),
	"max-client-streams": capProbe("client streams (POST /v1/collect, h2c, the body left open)", func(ctx context.Context, s *serveProc) (int, string) {
		return postOpen(ctx, h2c, s.url("/v1/collect"))
	}),
	"max-bidi-streams": capProbe("bidirectional streams (POST /v1/talk, h2c, the body left open)", func(ctx context.Context, s *serveProc) (int, string) {
		return postOpen(ctx, h2c, s.url("/v1/talk"))
	}),
	"max-websockets": capProbe("WebSockets (on GET /v1/hold)", func(ctx context.Context, s *serveProc) (int, string) {
		return openWebSocket(ctx, "ws://"+s.addr+"/v1/hold")
	}),
	"max-grpc-proxy-calls": capProbe("gRPC proxy streams (Hold, a connection each)", grpcHold),
}

// capProbe is the probe of a cap on calls at once, its flag's default:
// that many calls opened by open (each held until its context ends, when
// open returns 0), all of them awaited at the upstream, then one more,
// whose answer the row gives.
func capProbe(what string, open func(ctx context.Context, s *serveProc) (code int, answer string)) limitProbe {
	return limitProbe{run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		n, err := intOf(f)
		if err != nil {
			return "", "", err
		}
		held, release := context.WithCancel(ctx)
		var wg sync.WaitGroup
		defer func() {
			release()
			wg.Wait()
			waitUntil(10*time.Second, func() bool { return s.upstream.held.Load() == 0 })
		}()
		before := s.upstream.held.Load()
		for range n {
			wg.Go(func() { open(held, s) })
		}
		if !waitUntil(30*time.Second, func() bool { return s.upstream.held.Load()-before == int64(n) }) {
			return "", "", fmt.Errorf("%d of %d calls held at the upstream after 30s", s.upstream.held.Load()-before, n)
		}
		one, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		start := time.Now()
		code, answer := open(one, s)
		if code == 0 && answer == "" {
			answer = "held, like the others"
		}
		return fmt.Sprintf("%d %s held, then one more", n, what), answer + ", after " + time.Since(start).Round(10*time.Millisecond).String(), nil
	}}
}

// getAnswer GETs url: 0 and "" if held until ctx ended, else the status
// and the answer spelled.
func getAnswer(ctx context.Context, client *http.Client, url string) (int, string) {
	res, err := client.Do(newRequest(ctx, http.MethodGet, url, nil))
	if err != nil {
		return 0, ""
	}
	defer res.Body.Close()
	return res.StatusCode, retryAnswer(res)
}

// grpcHold opens a server stream of Hold through serve's gRPC proxy, on a
// connection of its own (the held ones would take every stream of one):
// 0 and "" if held until ctx ended, else its status.
func grpcHold(ctx context.Context, s *serveProc) (int, string) {
	conn, err := grpc.NewClient(s.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return -1, err.Error()
	}
	defer conn.Close()
	cs, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, "/"+probeService+"/Hold")
	if err == nil {
		err = cs.SendMsg(&emptypb.Empty{})
	}
	if err == nil {
		err = cs.RecvMsg(&emptypb.Empty{})
	}
	if ctx.Err() != nil {
		return 0, ""
	}
	st := status.Convert(err)
	return int(st.Code()), fmt.Sprintf("gRPC status %d %s: %q", st.Code(), codeName(int(st.Code())), st.Message())
}

// retryAnswer is statusAnswer, and the Retry-After header if there is one.
func retryAnswer(res *http.Response) string {
	answer := statusAnswer(res)
	if ra := res.Header.Get("Retry-After"); ra != "" {
		answer += "; Retry-After: " + ra
	}
	return answer
}

// waitUntil polls ok every 10 ms for at most d.
func waitUntil(d time.Duration, ok func() bool) bool {
	for end := time.Now().Add(d); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			return false
		}
	}
	return true
}
