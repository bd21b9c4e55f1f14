package protorest_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/http2"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// framingProbes answers CreateProbe and GetProbe with the request's
// name, and counts the calls.
type framingProbes struct {
	confv1.UnimplementedProbesServer
	calls atomic.Int64
}

func (p *framingProbes) CreateProbe(_ context.Context, req *confv1.Probe) (*confv1.Probe, error) {
	p.calls.Add(1)
	return &confv1.Probe{Name: "created " + req.GetName()}, nil
}

func (p *framingProbes) GetProbe(_ context.Context, req *confv1.Probe) (*confv1.Probe, error) {
	p.calls.Add(1)
	return &confv1.Probe{Name: "got " + req.GetName()}, nil
}

// A framingServer is the gateway served one way, and how to open a raw
// HTTP/1.1 connection to it.
type framingServer struct {
	probes *framingProbes
	dial   func(t *testing.T) net.Conn
	client *http.Client // HTTP/2
}

// framingServers serves a gateway each way HTTP/1.1 framing is handled:
// a bare http.Server (net/http alone), NewServer served by its own Serve
// (Guard's fallback), and NewServer served by protorest.Serve, plain and
// TLS.
func framingServers(t *testing.T) map[string]*framingServer {
	t.Helper()
	servers := map[string]*framingServer{}
	start := func(name string, serve func(srv *http.Server, l net.Listener) error, bare, withTLS bool) {
		p := &framingProbes{}
		gw := protorest.NewGateway()
		confv1.RegisterProbesServer(gw, p)
		srv := protorest.NewServer("", gw)
		if bare {
			srv = &http.Server{Handler: gw}
		}
		var tlsConfig *tls.Config
		if withTLS {
			ts := httptest.NewUnstartedServer(nil)
			ts.StartTLS()
			ts.Close()
			tlsConfig = &tls.Config{Certificates: ts.TLS.Certificates}
			srv.TLSConfig = tlsConfig
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- serve(srv, l) }()
		t.Cleanup(func() {
			srv.Close()
			if err := <-done; !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("%s: serve: %v", name, err)
			}
		})
		addr := l.Addr().String()
		fs := &framingServer{probes: p}
		var tr http.Transport
		tr.Protocols = new(http.Protocols)
		if withTLS {
			fs.dial = func(t *testing.T) net.Conn {
				c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
			tr.Protocols.SetHTTP2(true)
		} else {
			fs.dial = func(t *testing.T) net.Conn {
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			tr.Protocols.SetUnencryptedHTTP2(true)
		}
		scheme := map[bool]string{false: "http", true: "https"}[withTLS]
		fs.client = &http.Client{Transport: &rebase{&tr, scheme + "://" + addr}, Timeout: 10 * time.Second}
		t.Cleanup(tr.CloseIdleConnections)
		servers[name] = fs
	}
	start("net/http", (*http.Server).Serve, true, false)
	start("NewServer, http.Server.Serve", (*http.Server).Serve, false, false)
	start("NewServer, protorest.Serve", protorest.Serve, false, false)
	start("NewServer, protorest.Serve, TLS", protorest.Serve, false, true)
	return servers
}

// rebase sends each request to base, whatever its URL's host.
type rebase struct {
	rt   http.RoundTripper
	base string
}

func (r *rebase) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	u := *req.URL
	b, _ := http.NewRequest("GET", r.base, nil)
	u.Scheme, u.Host = b.URL.Scheme, b.URL.Host
	req.URL, req.Host = &u, ""
	return r.rt.RoundTrip(req)
}

// pipelined writes raw on a new connection and reads the responses until
// the server closes the connection or stays silent for 300 ms.
func pipelined(t *testing.T, s *framingServer, raw string) (resps []framingResp, closed bool) {
	t.Helper()
	c := s.dial(t)
	defer c.Close()
	go c.Write([]byte(raw)) // the server may answer before it has read it all
	br := bufio.NewReader(c)
	for {
		c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return resps, false
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "reset") {
				return resps, true
			}
			t.Fatalf("reading response %d: %v", len(resps)+1, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resps = append(resps, framingResp{resp.StatusCode, string(body)})
	}
}

type framingResp struct {
	status int
	body   string
}

// TestServerFraming sends HTTP/1.1 framing that RFC 9112 calls faulty,
// with a request pipelined behind it, as raw bytes over real connections:
// net/http alone serves both (Content-Length dropped for the chunked
// body, the request behind it read; Transfer-Encoding ignored on
// HTTP/1.0, the method run with an empty message and the chunked body
// read as the next request); protorest.Serve answers 400 and closes the
// connection; NewServer served by http.Server.Serve closes the connection
// after a chunked request and cannot see Transfer-Encoding on HTTP/1.0.
func TestServerFraming(t *testing.T) {
	const (
		bothLengths = "POST /v1/probes HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"10\r\n{\"name\":\"first\"}\r\n0\r\n\r\n"
		http10Chunked = "POST /v1/probes HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"GET /v1/probes/smuggled HTTP/1.1\r\nHost: x\r\n\r\n" // the "body" a chunked proxy forwards
		chunked = "POST /v1/probes HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{\"name\":\"first\"}\r\n0\r\n\r\n"
		second  = "GET /v1/probes/second HTTP/1.1\r\nHost: x\r\n\r\n"
	)
	refused := framingResp{status: 400}
	type want struct {
		resps  []framingResp
		closed bool
		calls  int64
	}
	tests := []struct {
		name string
		raw  string
		want map[string]want // by server
	}{
		{"Content-Length and Transfer-Encoding", bothLengths + second, map[string]want{
			"net/http":                        {[]framingResp{{200, "created first"}, {200, "got second"}}, false, 2},
			"NewServer, http.Server.Serve":    {[]framingResp{{200, "created first"}}, true, 1},
			"NewServer, protorest.Serve":      {[]framingResp{refused}, true, 0},
			"NewServer, protorest.Serve, TLS": {[]framingResp{refused}, true, 0},
		}},
		{"HTTP/1.0 with Transfer-Encoding", http10Chunked, map[string]want{
			"net/http":                        {[]framingResp{{200, "created "}, {200, "got smuggled"}}, false, 2},
			"NewServer, http.Server.Serve":    {[]framingResp{{200, "created "}, {200, "got smuggled"}}, false, 2},
			"NewServer, protorest.Serve":      {[]framingResp{refused}, true, 0},
			"NewServer, protorest.Serve, TLS": {[]framingResp{refused}, true, 0},
		}},
		{"a clean request before", second + bothLengths + second, map[string]want{
			"net/http":                        {[]framingResp{{200, "got second"}, {200, "created first"}, {200, "got second"}}, false, 3},
			"NewServer, http.Server.Serve":    {[]framingResp{{200, "got second"}, {200, "created first"}}, true, 2},
			"NewServer, protorest.Serve":      {[]framingResp{{200, "got second"}, refused}, true, 1},
			"NewServer, protorest.Serve, TLS": {[]framingResp{{200, "got second"}, refused}, true, 1},
		}},
		{"chunked alone", chunked + second, map[string]want{
			"net/http":                        {[]framingResp{{200, "created first"}, {200, "got second"}}, false, 2},
			"NewServer, http.Server.Serve":    {[]framingResp{{200, "created first"}}, true, 1},
			"NewServer, protorest.Serve":      {[]framingResp{{200, "created first"}, {200, "got second"}}, false, 2},
			"NewServer, protorest.Serve, TLS": {[]framingResp{{200, "created first"}, {200, "got second"}}, false, 2},
		}},
	}
	servers := framingServers(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for name, w := range tt.want {
				t.Run(name, func(t *testing.T) {
					s := servers[name]
					before := s.probes.calls.Load()
					resps, closed := pipelined(t, s, tt.raw)
					if len(resps) != len(w.resps) {
						t.Fatalf("%d responses %v, want %d", len(resps), resps, len(w.resps))
					}
					for i, r := range resps {
						if r.status != w.resps[i].status {
							t.Errorf("response %d: %d %s, want %d", i+1, r.status, r.body, w.resps[i].status)
						}
						if r.status == 200 && !strings.Contains(r.body, w.resps[i].body) {
							t.Errorf("response %d: %s, want %q", i+1, r.body, w.resps[i].body)
						}
						if r.status == 400 {
							var st spb.Status
							if err := protojson.Unmarshal([]byte(r.body), &st); err != nil || codes.Code(st.Code) != codes.InvalidArgument {
								t.Errorf("400 body %s (%v), want a google.rpc.Status INVALID_ARGUMENT", r.body, err)
							}
						}
					}
					if closed != w.closed {
						t.Errorf("connection closed %v, want %v", closed, w.closed)
					}
					if calls := s.probes.calls.Load() - before; calls != w.calls {
						t.Errorf("%d calls, want %d", calls, w.calls)
					}
				})
			}
		})
	}
}

// TestServeHTTP2 serves HTTP/2 through protorest.Serve: h2c on a plain
// listener, h2 by ALPN with TLS.
func TestServeHTTP2(t *testing.T) {
	servers := framingServers(t)
	for _, name := range []string{"NewServer, protorest.Serve", "NewServer, protorest.Serve, TLS"} {
		t.Run(name, func(t *testing.T) {
			resp, err := servers[name].client.Get("http://x/v1/probes/h2")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.ProtoMajor != 2 || resp.StatusCode != 200 || !strings.Contains(string(body), "got h2") {
				t.Errorf("%s %d %s, want HTTP/2.0 200", resp.Proto, resp.StatusCode, body)
			}
		})
	}
}

// smallWriteBuffers gives each accepted TCP connection a send buffer of
// bytes, so that a peer that does not read blocks the server's writes
// soon.
type smallWriteBuffers struct {
	net.Listener
	bytes int
}

func (l smallWriteBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(l.bytes)
	}
	return c, err
}

// TestServerSettingsFlood: a client floods SETTINGS frames over h2c and
// never reads. net/http coalesces the ACKs, so its limit on queued control
// frames never trips; once the ACKs fill the socket buffers its writes
// block, and the connection was held for as long as the client cared (the
// GOAWAY of the idle timeout waits behind the blocked write):
// HTTP2.WriteByteTimeout 0, still open after the flood and 5 s more.
// NewServer sets a WriteByteTimeout (30 s), which closes it; here 300 ms,
// with 4 KiB socket buffers both sides, so that the test takes seconds.
func TestServerSettingsFlood(t *testing.T) {
	if d := protorest.NewServer("", nil).HTTP2.WriteByteTimeout; d != 30*time.Second {
		t.Errorf("NewServer's HTTP2.WriteByteTimeout %v, want 30s", d)
	}
	for _, tt := range []struct {
		writeByteTimeout time.Duration
		closes           bool
	}{{300 * time.Millisecond, true}, {0, false}} {
		t.Run(fmt.Sprint("WriteByteTimeout ", tt.writeByteTimeout), func(t *testing.T) {
			t.Parallel()
			srv := protorest.NewServer("", http.NotFoundHandler())
			srv.HTTP2.WriteByteTimeout = tt.writeByteTimeout
			closed := make(chan struct{})
			srv.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateClosed {
					close(closed)
				}
			}
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go protorest.Serve(srv, smallWriteBuffers{l, 4096})
			t.Cleanup(func() { srv.Close() })
			// The receive buffer is set before connecting: the window the
			// client offers is small from the start.
			d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
				return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
			}}
			c, err := d.Dial("tcp", l.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Write([]byte(http2.ClientPreface)); err != nil {
				t.Fatal(err)
			}
			fr := http2.NewFramer(c, c)
			start := time.Now()
			// The flood lasts until the server closes the connection, or
			// for as long as the test waits: 15 s for a connection that
			// must stay open, up to 30 s (a loaded machine) for one that
			// must close; with a 300 ms timeout it closed in 3-7 s here.
			wait := 15 * time.Second
			if tt.closes {
				wait = 30 * time.Second
			}
			go func() {
				fr.WriteSettings()
				for time.Since(start) < wait {
					c.SetWriteDeadline(time.Now().Add(time.Second))
					err := fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 65535})
					if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
						return // the server closed the connection
					}
				}
			}()
			select {
			case <-closed:
				if !tt.closes {
					t.Errorf("closed after %v: the flood did not hold it", time.Since(start).Round(time.Millisecond))
				}
				t.Logf("closed after %v", time.Since(start).Round(time.Millisecond))
			case <-time.After(wait):
				if tt.closes {
					t.Errorf("still open %v into a SETTINGS flood that never reads", wait)
				}
			}
		})
	}
}
