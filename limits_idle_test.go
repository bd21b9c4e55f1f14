package protorest_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/protorest/protorest"
)

// The idle timeouts of these tests: short, so that the tests are; the
// margins allow for a loaded machine.
const (
	testReadIdle   = 200 * time.Millisecond
	testStreamIdle = 300 * time.Millisecond
	idleMargin     = 2 * time.Second
)

func idleOptions() []protorest.Option {
	return []protorest.Option{protorest.WithReadIdleTimeout(testReadIdle), protorest.WithStreamIdleTimeout(testStreamIdle)}
}

// settleGoroutines waits until no more goroutines run than before: what a
// timed-out request started has ended.
func settleGoroutines(t *testing.T, what string, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%s: %d goroutines, %d before:\n%s", what, runtime.NumGoroutine(), before, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// idleServers serves a streamer in-process and remote, over HTTP/1.1 and
// HTTP/2 (TLS), with the short idle timeouts.
func idleServers(t *testing.T) map[string]*httptest.Server {
	t.Helper()
	servers := map[string]*httptest.Server{}
	for _, kind := range []string{"in-process", "remote"} {
		h1 := httptest.NewServer(probesGateway(t, kind, newStreamer(), idleOptions()...))
		t.Cleanup(h1.Close)
		servers[kind+"/HTTP1"] = h1
		h2 := httptest.NewUnstartedServer(probesGateway(t, kind, newStreamer(), idleOptions()...))
		h2.EnableHTTP2 = true
		h2.StartTLS()
		t.Cleanup(h2.Close)
		h2.Client().Transport.(*http.Transport).TLSClientConfig = &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}}
		servers[kind+"/HTTP2"] = h2
	}
	return servers
}

// TestReadIdleStalledBody: a body that stops (Content-Length 10, 4 bytes
// sent) gets 408 DEADLINE_EXCEEDED once the read idle timeout has passed,
// in-process and remote, over HTTP/1.1 (and the connection is closed) and
// HTTP/2; nothing is left running.
func TestReadIdleStalledBody(t *testing.T) {
	for name, srv := range idleServers(t) {
		t.Run(name, func(t *testing.T) {
			client := srv.Client()
			// Warm up: the HTTP/2 connection, and the remote gateway's
			// connection to its backend, stay.
			if r := fetchWith(t, client, "GET", srv.URL+"/v1/watch/w?i32=1", nil); r.code != 200 {
				t.Fatalf("warm-up: %d %s", r.code, r.body)
			}
			client.CloseIdleConnections()
			before := runtime.NumGoroutine()
			start := time.Now()
			var got exchange
			if strings.HasSuffix(name, "HTTP1") {
				got = stalledHTTP1(t, srv.Listener.Addr().String())
			} else {
				pr, pw := io.Pipe()
				defer pw.Close()
				go pw.Write([]byte(`{"na`))
				got = fetchWith(t, client, "POST", srv.URL+"/v1/probes", pr, "Content-Length", "10")
			}
			took := time.Since(start)
			if got.code != http.StatusRequestTimeout || !strings.Contains(got.body, `{"code":4,"message":"no request body bytes for 200ms"`) {
				t.Errorf("got %d %q, want 408 DEADLINE_EXCEEDED", got.code, got.body)
			}
			if got.header.Get("Content-Type") != "application/json" {
				t.Errorf("Content-Type %q", got.header.Get("Content-Type"))
			}
			if took < testReadIdle || took > testReadIdle+idleMargin {
				t.Errorf("answered after %v, want %v", took, testReadIdle)
			}
			client.CloseIdleConnections()
			settleGoroutines(t, name, before)
		})
	}
}

// stalledHTTP1 sends the headers of a POST with Content-Length 10 and 4
// bytes of its body on a raw connection, and reads the answer; the
// server must then close the connection.
func stalledHTTP1(t *testing.T, addr string) exchange {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "POST /v1/probes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{\"na")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Close {
		t.Errorf("the response keeps the connection open (Connection: %q)", resp.Header.Get("Connection"))
	}
	if n, err := br.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("after the answer: %d bytes, %v; want the connection closed", n, err)
	}
	return exchange{code: resp.StatusCode, header: resp.Header, body: string(body)}
}

// TestReadIdleTrickle: a body that keeps coming, a byte every 40 ms
// (well within the idle timeout) but under 500 bytes/s, gets 408 once the
// idle timeout and the time its bytes earned have passed.
func TestReadIdleTrickle(t *testing.T) {
	srv := httptest.NewServer(probesGateway(t, "in-process", newStreamer(), idleOptions()...))
	defer srv.Close()
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() {
		for _, c := range []byte(`{"name":"a long name, slowly"}`) {
			if _, err := pw.Write([]byte{c}); err != nil {
				return
			}
			time.Sleep(40 * time.Millisecond)
		}
	}()
	start := time.Now()
	// A client time limit, so that a gateway that never cuts the trickle
	// fails the test instead of hanging it.
	client := srv.Client()
	client.Timeout = 5 * time.Second
	got := fetchWith(t, client, "POST", srv.URL+"/v1/probes", pr)
	took := time.Since(start)
	if got.code != http.StatusRequestTimeout || !strings.Contains(got.body, `{"code":4,"message":"request body arriving slower than 500 bytes/s"`) {
		t.Errorf("got %d %q", got.code, got.body)
	}
	if took > testReadIdle+idleMargin {
		t.Errorf("answered after %v", took)
	}
}

// TestReadIdleClientStream: a request stream that stops in the middle of
// a message fails the call: the method's context (in-process) or the
// backend's call (remote) is canceled, and the client gets 408.
func TestReadIdleClientStream(t *testing.T) {
	for name, srv := range idleServers(t) {
		kind := strings.Split(name, "/")[0]
		t.Run(name, func(t *testing.T) {
			s := newStreamer()
			gw := probesGateway(t, kind, s, idleOptions()...)
			srv.Config.Handler = gw
			pr, pw := io.Pipe()
			defer pw.Close()
			go fmt.Fprint(pw, `{"name":"hold"}`+"\n"+`{"na`)
			start := time.Now()
			got := fetchWith(t, srv.Client(), "POST", srv.URL+"/v1/chat", pr)
			if got.code != http.StatusRequestTimeout || !strings.Contains(got.body, `"code":4,"message":"no request body bytes for 200ms"`) {
				t.Errorf("got %d %q", got.code, got.body)
			}
			select {
			case <-s.canceled:
			case <-time.After(idleMargin):
				t.Fatal("the method's call was not canceled")
			}
			if took := time.Since(start); took > testReadIdle+idleMargin {
				t.Errorf("answered after %v", took)
			}
		})
	}
}

// TestStreamIdleServerStream: a server stream that sends nothing for the
// stream idle timeout is ended, and its method's call canceled: an
// in-band error once the response has started (in-process, Watch sends
// its header at once), else 408.
func TestStreamIdleServerStream(t *testing.T) {
	for name, srv := range idleServers(t) {
		kind := strings.Split(name, "/")[0]
		for _, accept := range []string{"", "text/event-stream"} {
			t.Run(name+"/"+accept, func(t *testing.T) {
				s := newStreamer()
				srv.Config.Handler = probesGateway(t, kind, s, idleOptions()...)
				if r := fetchWith(t, srv.Client(), "GET", srv.URL+"/v1/watch/w?i32=1", nil); r.code != 200 {
					t.Fatalf("warm-up: %d %s", r.code, r.body)
				}
				srv.Client().CloseIdleConnections()
				before := runtime.NumGoroutine()
				start := time.Now()
				got := fetchWith(t, srv.Client(), "GET", srv.URL+"/v1/watch/w?flag=true", nil, "Accept", accept, "TE", "trailers")
				took := time.Since(start)
				const msg = `"code":4,"message":"stream idle: no message either way for 300ms"`
				switch {
				case kind == "remote": // the response waits for the first message
					if got.code != http.StatusRequestTimeout || !strings.Contains(got.body, msg) {
						t.Errorf("got %d %q, want 408", got.code, got.body)
					}
				case accept == "":
					if got.code != 200 || !strings.HasPrefix(got.body, `{"error":{`+msg) {
						t.Errorf("got %d %q, want an in-band error", got.code, got.body)
					}
				default:
					if got.code != 200 || !strings.HasPrefix(got.body, "event: error\ndata: {"+msg) {
						t.Errorf("got %d %q, want an SSE error event", got.code, got.body)
					}
				}
				if kind == "in-process" && got.trailer.Get("Grpc-Status") != "4" {
					t.Errorf("Grpc-Status trailer %q", got.trailer.Get("Grpc-Status"))
				}
				select {
				case <-s.canceled:
				case <-time.After(idleMargin):
					t.Fatal("the method's call was not canceled")
				}
				if took < testStreamIdle || took > testStreamIdle+idleMargin {
					t.Errorf("ended after %v, want %v", took, testStreamIdle)
				}
				srv.Client().CloseIdleConnections()
				settleGoroutines(t, name, before)
			})
		}
	}
}

// TestStreamIdleSparesBusyStreams: a stream whose messages keep coming,
// each within the stream idle timeout, lasts as long as it likes, however
// long a client waits between messages (longer than the read idle
// timeout, which times a message once it has begun). Messages one way
// only (a client stream) count as much as both ways (a chat).
func TestStreamIdleSparesBusyStreams(t *testing.T) {
	for name, srv := range idleServers(t) {
		kind := strings.Split(name, "/")[0]
		for _, method := range []string{"chat", "bulk"} {
			t.Run(name+"/"+method, func(t *testing.T) {
				srv.Config.Handler = probesGateway(t, kind, newStreamer(), protorest.WithReadIdleTimeout(50*time.Millisecond), protorest.WithStreamIdleTimeout(time.Second))
				pr, pw := io.Pipe()
				const n = 10 // 10 × 150 ms: longer than the stream idle timeout
				go func() {
					for i := range n {
						time.Sleep(150 * time.Millisecond)
						fmt.Fprintf(pw, "{\"name\":\"m%d\"}\n", i)
					}
					pw.Close()
				}()
				got := fetchWith(t, srv.Client(), "POST", srv.URL+"/v1/"+method, pr)
				want := `{"name":"m0,m1,m2,m3,m4,m5,m6,m7,m8,m9","i32":10}`
				if method == "chat" {
					want = strings.Repeat(`{"result":{"name":"re: m?"}}`+"\n", n)
					got.body = strings.Join(strings.FieldsFunc(got.body, func(r rune) bool { return r >= '0' && r <= '9' }), "?")
					want = strings.Join(strings.FieldsFunc(want, func(r rune) bool { return r >= '0' && r <= '9' }), "?")
				}
				if got.code != 200 || got.body != want || got.err != nil {
					t.Errorf("got %d %q (%v), want %q", got.code, got.body, got.err, want)
				}
			})
		}
	}
}

// TestStreamIdleWebSocket: a WebSocket chat with no message either way
// for the stream idle timeout is closed with 4004 (4000 +
// DEADLINE_EXCEEDED, as every outcome is reported), and its method's
// call canceled; one that keeps talking is not.
func TestStreamIdleWebSocket(t *testing.T) {
	for _, kind := range []string{"in-process", "remote"} {
		t.Run(kind, func(t *testing.T) {
			s := newStreamer()
			srv := httptest.NewServer(probesGateway(t, kind, s, idleOptions()...))
			defer srv.Close()

			busy := wsDial(t, srv.URL+"/v1/chat", nil)
			for i := range 6 { // 6 × 100 ms: two idle timeouts
				time.Sleep(100 * time.Millisecond)
				wsWrite(t, busy, websocket.MessageText, fmt.Sprintf(`{"name":"m%d"}`, i))
				if _, msg, err := wsRead(t, busy); err != nil || msg != fmt.Sprintf(`{"name":"re: m%d"}`, i) {
					t.Fatalf("reply %d: %q %v", i, msg, err)
				}
			}
			busy.Close(websocket.StatusNormalClosure, "")

			before := runtime.NumGoroutine()
			start := time.Now()
			idle := wsDial(t, srv.URL+"/v1/chat", nil)
			wsWrite(t, idle, websocket.MessageText, `{"name":"hold"}`)
			wsClosed(t, idle, 4004, "stream idle: no message either way for 300ms")
			if took := time.Since(start); took < testStreamIdle || took > testStreamIdle+idleMargin {
				t.Errorf("closed after %v, want %v", took, testStreamIdle)
			}
			select {
			case <-s.canceled:
			case <-time.After(idleMargin):
				t.Fatal("the method's call was not canceled")
			}
			idle.CloseNow()
			settleGoroutines(t, kind, before)
		})
	}
}

// TestIdleTimeoutsOff: d <= 0 turns each timeout off.
func TestIdleTimeoutsOff(t *testing.T) {
	s := newStreamer()
	srv := httptest.NewServer(probesGateway(t, "in-process", s, protorest.WithReadIdleTimeout(0), protorest.WithStreamIdleTimeout(-1)))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v1/watch/w?flag=true", nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-s.started
	select {
	case <-s.canceled:
		t.Fatal("a stream was ended with no stream idle timeout")
	case <-time.After(time.Second):
	}
	cancel()
	<-s.canceled
}

// TestHTTP2EmptyBodyNotAwaited: an HTTP/2 request that declares an empty
// body (Content-Length: 0) but leaves its stream open is answered at
// once, in-process and remote: net/http resets a stream that sends more
// than it declared, so there is no body to wait for (its read would wait
// for the read idle timeout, 30 s by default).
func TestHTTP2EmptyBodyNotAwaited(t *testing.T) {
	for _, kind := range []string{"in-process", "remote"} {
		t.Run(kind, func(t *testing.T) {
			srv := h2cServer(t, probesGateway(t, kind, metadataProbes{newStreamer()}))
			c := dialStalled(t, srv.Listener.Addr().String())
			declared := c.GetUnended(t, "/v1/probes/p", [2]string{"content-length", "0"})
			undeclared := c.GetUnended(t, "/v1/probes/q")
			if !waitFor(5*time.Second, func() bool { return c.Status(declared) != 0 }) {
				t.Fatal("no answer in 5s to a GET with Content-Length: 0 whose stream is open")
			}
			if code := c.Status(declared); code != http.StatusOK {
				t.Errorf("Content-Length: 0: status %d, want 200", code)
			}
			// Without a declared length the body may still come: it is
			// waited for, as before.
			if code := c.Status(undeclared); code != 0 {
				t.Errorf("no Content-Length: answered %d before the body ended", code)
			}
		})
	}
}
