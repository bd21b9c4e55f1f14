package protorest_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// TestHTTP1AnswerBeforeBodyRead: over HTTP/1.1, a client stream whose
// first message is over the limit is answered at once, while the client
// still sends a chunked body the gateway will not read. The answer says
// "Connection: close" (RFC 9112 §9.6), so that the client sends its next
// request on another connection, and the connection's close lingers: a
// client that sends 512 KiB more before it reads still reads the answer,
// not a reset, and may send 256 KiB more after it. REST, Connect and gRPC-Web; a client stream and, in full
// duplex, a bidi stream; in-process and remote; served by protorest.Serve.
func TestHTTP1AnswerBeforeBodyRead(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	big := strings.Repeat("a", 2*limit)
	wires := []struct {
		name, path, contentType string
		first                   []byte // the start of the first message, over the limit
		answer                  string // in the answer
	}{
		{"rest", "/v1/bulk", "application/json", []byte(`{"name":"` + big[:limit+10]), `"code":8`},
		{"connect client stream", "/conf.v1.Probes/BulkCreate", "application/connect+proto", prefix(0, 2*limit), "resource_exhausted"},
		{"connect bidi", "/conf.v1.Probes/Chat", "application/connect+proto", prefix(0, 2*limit), "resource_exhausted"},
		{"grpc-web client stream", "/conf.v1.Probes/BulkCreate", "application/grpc-web+proto", prefix(0, 2*limit), "Grpc-Status: 8"},
		{"grpc-web bidi", "/conf.v1.Probes/Chat", "application/grpc-web+proto", prefix(0, 2*limit), "Grpc-Status: 8"},
	}
	for _, kind := range []string{"in-process", "remote"} {
		gw := probesGateway(t, kind, newStreamer(), protorest.WithMaxRequestBodySize(limit))
		addr := serveLoopback(t, gw)
		for _, w := range wires {
			t.Run(kind+"/"+w.name, func(t *testing.T) {
				t.Parallel()
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", w.path, w.contentType, len(w.first), w.first)
				// The client sends on before it reads, as a client that
				// does not read while it writes would.
				chunk := strings.Repeat("b", 32<<10)
				for range 16 {
					if _, err := fmt.Fprintf(c, "%x\r\n%s\r\n", len(chunk), chunk); err != nil {
						break // the server may close once it has read enough
					}
				}
				br := bufio.NewReader(c)
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("reading the answer: %v", err)
				}
				body, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatalf("reading the answer's body: %v", err)
				}
				var head strings.Builder
				resp.Header.Write(&head)
				if !resp.Close {
					t.Errorf("the answer does not say Connection: close:\n%s", head.String())
				}
				if all := head.String() + string(body); !strings.Contains(all, w.answer) {
					t.Errorf("the answer (%d) has no %q:\n%s%q", resp.StatusCode, w.answer, head.String(), body)
				}
				// The close lingers: a client still sending its body, as
				// Go's net/http sends it beside reading the answer, is not
				// reset, which it would report instead of the answer.
				time.Sleep(50 * time.Millisecond)
				for i := range 8 {
					if _, err := fmt.Fprintf(c, "%x\r\n%s\r\n", len(chunk), chunk); err != nil {
						t.Fatalf("sending the body's rest (%d KiB more) after the answer: %v", 32*i, err)
					}
					time.Sleep(5 * time.Millisecond)
				}
				// The connection serves no other request.
				fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: 0\r\n\r\n", w.path, w.contentType)
				if resp, err := http.ReadResponse(br, nil); err == nil {
					t.Errorf("the connection served another request: %d", resp.StatusCode)
				}
			})
		}
	}
}

// serveLoopback serves h with protorest.NewServer and protorest.Serve on
// a loopback port, and returns its address.
func serveLoopback(t *testing.T, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := protorest.NewServer("", h)
	go protorest.Serve(srv, l)
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

// TestHTTP1BodyReadWholeKeepsConnection: over HTTP/1.1, a call whose
// chunked body is read to its end keeps its connection, which serves the
// next request: REST, Connect and gRPC-Web client and bidi streams.
func TestHTTP1BodyReadWholeKeepsConnection(t *testing.T) {
	t.Parallel()
	msg := mustMarshal(&confv1.Probe{Name: "a"})
	wires := []struct {
		name, path, contentType, body string
	}{
		{"rest", "/v1/bulk", "application/json", `{"name":"a"}`},
		{"connect client stream", "/conf.v1.Probes/BulkCreate", "application/connect+proto", string(frame(0, []byte(msg)))},
		{"connect bidi", "/conf.v1.Probes/Chat", "application/connect+proto", string(frame(0, []byte(msg)))},
		{"grpc-web client stream", "/conf.v1.Probes/BulkCreate", "application/grpc-web+proto", string(frame(0, []byte(msg)))},
		{"grpc-web bidi", "/conf.v1.Probes/Chat", "application/grpc-web+proto", string(frame(0, []byte(msg)))},
	}
	for _, kind := range []string{"in-process", "remote"} {
		addr := serveLoopback(t, probesGateway(t, kind, newStreamer()))
		for _, w := range wires {
			t.Run(kind+"/"+w.name, func(t *testing.T) {
				t.Parallel()
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				br := bufio.NewReader(c)
				for i := range 2 {
					fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", w.path, w.contentType, len(w.body), w.body)
					resp, err := http.ReadResponse(br, nil)
					if err != nil {
						t.Fatalf("call %d: %v", i+1, err)
					}
					body, _ := io.ReadAll(resp.Body)
					if resp.StatusCode != http.StatusOK || resp.Close {
						t.Fatalf("call %d: %d, Connection: close %v, %q", i+1, resp.StatusCode, resp.Close, body)
					}
				}
			})
		}
	}
}
