package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// The idle flood's connections are counted open until the server closes
// them.
func TestOpenIdleStillOpen(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/ping")
	conns, served := openIdle(context.Background(), u, 5, true)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	if len(conns) != 5 || served != 5 {
		t.Fatalf("%d connections, %d served; want 5 and 5", len(conns), served)
	}
	if n := stillOpen(conns); n != 5 {
		t.Errorf("still open: %d, want 5", n)
	}
	srv.CloseClientConnections()
	if n := stillOpen(conns); n != 0 {
		t.Errorf("still open after the server closed them: %d, want 0", n)
	}
}

// h2Streams breaches an HTTP/2 server's stream limit and reads its
// answer: the server's SETTINGS and the reset of the stream over it.
func TestH2Streams(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }),
		HTTP2:   &http.HTTP2Config{MaxConcurrentStreams: 3},
	}
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetUnencryptedHTTP2(true)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	got, err := h2Streams(ln.Addr().String(), "/wait", 4)
	if err != nil {
		t.Fatal(err)
	}
	if want := "SETTINGS_MAX_CONCURRENT_STREAMS 3; RST_STREAM PROTOCOL_ERROR on stream 7 (the 4th)"; !strings.HasPrefix(got, want) {
		t.Errorf("got %q, want it to start %q", got, want)
	}
}
