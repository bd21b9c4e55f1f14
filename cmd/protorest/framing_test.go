package main

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestServeFraming sends serve, plain and with TLS, HTTP/1.1 framing that
// RFC 9112 calls faulty as raw bytes, with a request pipelined behind it:
// each gets 400 with a google.rpc.Status body and its connection closed,
// the request behind it unanswered; a chunked request alone is served and
// its connection kept.
func TestServeFraming(t *testing.T) {
	t.Parallel()
	const (
		echo        = `{"msg":"hello"}`
		bothLengths = "POST /api/v1/example/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\nf\r\n" + echo + "\r\n0\r\n\r\n"
		http10      = "POST /api/v1/example/echo HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\nGET /livez HTTP/1.1\r\nHost: x\r\n\r\n"
		chunked     = "POST /api/v1/example/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nf\r\n" + echo + "\r\n0\r\n\r\n"
		next        = "GET /livez HTTP/1.1\r\nHost: x\r\n\r\n"
	)
	plain := startServe(t, "--upstream", startUpstream(t, true), "--access-log=false")
	ca := newTestCA(t, "test CA")
	secure, _, _, _ := startTLSServe(t, ca, "--access-log=false")
	dial := map[string]func() (net.Conn, error){
		"plain": func() (net.Conn, error) { return net.Dial("tcp", strings.TrimPrefix(plain.url, "http://")) },
		"TLS": func() (net.Conn, error) {
			return tls.Dial("tcp", strings.TrimPrefix(secure.url, "https://"), &tls.Config{RootCAs: ca.pool(), NextProtos: []string{"http/1.1"}})
		},
	}
	tests := []struct {
		name     string
		raw      string
		statuses []int
		closed   bool
	}{
		{"Content-Length and Transfer-Encoding", bothLengths + next, []int{400}, true},
		{"HTTP/1.0 with Transfer-Encoding", http10, []int{400}, true},
		{"after a clean request", next + bothLengths + next, []int{200, 400}, true},
		{"chunked alone", chunked + next, []int{200, 200}, false},
	}
	for _, tt := range tests {
		for kind, d := range dial {
			t.Run(tt.name+"/"+kind, func(t *testing.T) {
				c, err := d()
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				go c.Write([]byte(tt.raw))
				br := bufio.NewReader(c)
				var statuses []int
				closed := false
				for {
					c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
					resp, err := http.ReadResponse(br, nil)
					if err != nil {
						var ne net.Error
						closed = !(errors.As(err, &ne) && ne.Timeout())
						break
					}
					body, _ := io.ReadAll(resp.Body)
					statuses = append(statuses, resp.StatusCode)
					if resp.StatusCode == 400 && !strings.Contains(string(body), `"code":3`) {
						t.Errorf("400 body %s, want a google.rpc.Status INVALID_ARGUMENT", body)
					}
				}
				if !slices.Equal(statuses, tt.statuses) || closed != tt.closed {
					t.Errorf("statuses %v, closed %v; want %v, closed %v", statuses, closed, tt.statuses, tt.closed)
				}
			})
		}
	}
}
