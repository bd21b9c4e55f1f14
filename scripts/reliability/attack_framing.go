package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// clteRequest is a request with both Content-Length and Transfer-Encoding
// (its chunked body is "{}"), and a GET pipelined behind it.
const clteRequest = "POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n" +
	"2\r\n{}\r\n0\r\n\r\nGET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n"

// clte sends n CL+TE requests, 20 at a time, each on a new connection,
// and counts the first answers, the pipelined requests answered, and the
// connections serve closed.
func clte(ctx context.Context, e *attackEnv, n int) string {
	var mu sync.Mutex
	first := map[int]int{}
	pipelined, closed := 0, 0
	sem := make(chan struct{}, 20)
	var wg sync.WaitGroup
	for range n {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			status, second, gone := clteOnce(e.serve.addr)
			mu.Lock()
			first[status]++
			if second {
				pipelined++
			}
			if gone {
				closed++
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return fmt.Sprintf("first answers: %s; the pipelined GET answered on %d of %d; connections closed by serve: %d", statusText(first), pipelined, n, closed)
}

// clteOnce sends clteRequest and reads what comes: the first status,
// whether the pipelined request was answered, whether serve then closed
// the connection.
func clteOnce(addr string) (status int, second, closed bool) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, false, false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, clteRequest); err != nil {
		return 0, false, false
	}
	br := bufio.NewReader(c)
	for i := 0; ; i++ {
		c.SetReadDeadline(time.Now().Add(time.Second))
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			return status, second, !isTimeout(err)
		}
		drain(res.Body)
		if i == 0 {
			status = res.StatusCode
		} else {
			second = true
		}
	}
}
