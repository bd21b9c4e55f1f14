// Command timeout-split measures, with connect-go alone (its own handler
// and nothing of protorest), the race behind the conformance suite's
// flaky Connect unary Timeouts cases over HTTP/2 (docs/conformance.md):
// a client sends Connect-Timeout-Ms as connect-go does, its time left
// rounded down to whole milliseconds, to a handler that waits for its
// deadline and answers DEADLINE_EXCEEDED. The server's deadline can then
// end before the client's, and Go's HTTP/2 server writes the answer's
// HEADERS and DATA frames apart: it counts the calls whose client read
// the headers, then met its own deadline before the body.
//
//	go run ./cmd/timeout-split -n 1000 -timeout 20ms
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/emptypb"
)

func main() {
	n := flag.Int("n", 1000, "calls, one after the other")
	timeout := flag.Duration("timeout", 20*time.Millisecond, "each call's deadline")
	flag.Parse()

	const path = "/timeout.v1.Split/Wait"
	mux := http.NewServeMux()
	mux.Handle(path, connect.NewUnaryHandler(path, func(ctx context.Context, _ *connect.Request[emptypb.Empty]) (*connect.Response[emptypb.Empty], error) {
		<-ctx.Done()
		return nil, connect.NewError(connect.CodeDeadlineExceeded, ctx.Err())
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	h2c := new(http.Protocols)
	h2c.SetUnencryptedHTTP2(true)
	go (&http.Server{Handler: mux, Protocols: h2c}).Serve(ln)
	url := "http://" + ln.Addr().String() + path
	client := &http.Client{Transport: &http.Transport{Protocols: h2c}}

	var noAnswer, whole, split, other int
	for range *n {
		switch call(client, url, *timeout) {
		case "no answer":
			noAnswer++
		case "whole":
			whole++
		case "split":
			split++
		default:
			other++
		}
	}
	fmt.Printf("%d calls of %v: the client's deadline before any answer %d; the server's error read whole %d; headers read, then the client's deadline, no body %d; other %d\n",
		*n, *timeout, noAnswer, whole, split, other)
}

// call makes one call and says how it ended.
func call(client *http.Client, url string, timeout time.Duration) string {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		log.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/proto")
	req.Header.Set("Connect-Protocol-Version", "1")
	// As connect-go's client: the time left, in whole milliseconds, rounded down.
	req.Header.Set("Connect-Timeout-Ms", strconv.FormatInt(max(int64(time.Until(deadline)/time.Millisecond), 1), 10))
	res, err := client.Do(req)
	if err != nil {
		return "no answer"
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	switch {
	case err == nil && len(body) > 0:
		return "whole"
	case errors.Is(err, context.DeadlineExceeded) && len(body) == 0:
		return "split"
	}
	return fmt.Sprintf("status %d, %d bytes, %v", res.StatusCode, len(body), err)
}
