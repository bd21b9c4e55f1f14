package protorest_test

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/protorest/protorest"
)

// TestClientStreamAnsweredBeforeBodyEnds: over HTTP/1.1, a client stream
// whose first message is not valid is answered 400 while the client still
// sends its body. Once the client sends the rest, the connection serves its
// next request; if it never does, the connection is closed within the read
// idle timeout, so that the rest is never taken for a request. Neither
// panics net/http (golang/go#68560: "invalid concurrent Body.Read call",
// when the body's end was found after the handler returned).
func TestClientStreamAnsweredBeforeBodyEnds(t *testing.T) {
	t.Parallel()
	const idle = 500 * time.Millisecond
	rest := strings.Repeat(" ", 200<<10) // under net/http's 256 KiB it reads after a handler
	first := `{"name": 5}`               // not valid: name is a string
	for _, kind := range []string{"in-process", "remote"} {
		for _, sendsRest := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/rest sent %v", kind, sendsRest), func(t *testing.T) {
				t.Parallel()
				var logged lockedBuffer
				srv := httptest.NewUnstartedServer(probesGateway(t, kind, newStreamer(), protorest.WithReadIdleTimeout(idle)))
				srv.Config.ErrorLog = log.New(&logged, "", 0)
				srv.Start()
				t.Cleanup(srv.Close)
				c, err := net.Dial("tcp", srv.Listener.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				br := bufio.NewReader(c)
				fmt.Fprintf(c, "POST /v1/bulk HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(first)+len(rest), first)
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"code":3`) {
					t.Fatalf("answer: %d %s", resp.StatusCode, body)
				}
				start := time.Now()
				if sendsRest {
					if _, err := io.WriteString(c, rest); err != nil {
						t.Fatal(err)
					}
				} else {
					time.Sleep(2 * idle) // the connection is closed meanwhile
					io.WriteString(c, rest)
				}
				next := `{"name":"next"}`
				fmt.Fprintf(c, "POST /v1/bulk HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(next), next)
				resp, err = http.ReadResponse(br, nil)
				switch {
				case sendsRest && err != nil:
					t.Fatalf("the next request on the connection: %v", err)
				case sendsRest:
					body, _ = io.ReadAll(resp.Body)
					if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"name":"next"`) {
						t.Errorf("the next request: %d %s", resp.StatusCode, body)
					}
				case err == nil:
					t.Errorf("the connection served %d after %v: the body's rest was taken for a request", resp.StatusCode, time.Since(start))
				}
				time.Sleep(50 * time.Millisecond) // net/http's read of the connection after the handler
				if s := logged.String(); s != "" {
					t.Errorf("the server logged: %.300s", s)
				}
			})
		}
	}
}

// lockedBuffer is a strings.Builder for several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
