package protorest

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/protorest/protorest/internal/budget"
	"github.com/protorest/protorest/internal/h1framing"
)

// NewServer returns an http.Server for h on addr with the settings
// recommended in front of a Gateway, the ones protorest serve uses (its
// flags change them):
//
//   - ReadHeaderTimeout 10 s: a client has that long to send a request's
//     headers (stops slowloris);
//   - IdleTimeout 120 s: a keep-alive connection waiting for its next
//     request is closed after that;
//   - MaxHeaderBytes 64 KiB: a larger request line and headers get 431;
//   - HTTP/2 with at most 100 concurrent streams a connection, over TLS
//     (with TLSConfig set) or unencrypted with prior knowledge (h2c) on a
//     plain listener, as gRPC clients speak it; HTTP/1.1 as well;
//   - HTTP2.WriteByteTimeout 30 s: an HTTP/2 connection whose writes make
//     no progress that long is closed (a client that never reads, for
//     one that floods frames whose answers it leaves unread; a client
//     that stops reading a stream is held back by flow control instead,
//     which does not count);
//   - HTTP/1.x framing as RFC 9112 asks: a request with both
//     Content-Length and Transfer-Encoding, or Transfer-Encoding on
//     HTTP/1.0, gets 400 (INVALID_ARGUMENT) and its connection is closed,
//     where net/http would serve it by one of the two and read on (request
//     smuggling behind a proxy that reads the other). This takes serving
//     with Serve or ListenAndServe below, which follow the request heads
//     that net/http hides from handlers; served by the http.Server's own
//     methods, a connection is closed after any chunked HTTP/1.1 request
//     instead. The handler and ConnContext NewServer sets do this;
//   - each connection's responses held to its share of the response
//     budget (WithMaxBufferedResponseBytesPerConn), which the ConnContext
//     NewServer sets gives each connection.
//
// ReadTimeout and WriteTimeout stay unset: they bound a whole request or
// response, streams included; the gateway bounds body reads and idle
// streams itself (WithReadIdleTimeout, WithStreamIdleTimeout). Change any
// field before serving.
func NewServer(addr string, h http.Handler) *http.Server {
	if h == nil {
		h = http.DefaultServeMux // http.Server's own default
	}
	srv := &http.Server{
		Addr:              addr,
		Handler:           h1framing.Guard(h),
		ConnContext:       connContext,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		HTTP2:             &http.HTTP2Config{MaxConcurrentStreams: 100, WriteByteTimeout: 30 * time.Second},
		Protocols:         new(http.Protocols),
	}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetHTTP2(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	return srv
}

// connContext is NewServer's ConnContext: the connection's Conn for the
// framing check, and its share of the gateways' budgets.
func connContext(ctx context.Context, c net.Conn) context.Context {
	return budget.WithConn(h1framing.ConnContext(ctx, c))
}

// Serve serves srv (from NewServer) on l, as srv.Serve does, or with TLS
// when srv.TLSConfig is set, as srv.ServeTLS does with the certificate of
// the config (Certificates, GetCertificate or GetConfigForClient); and it
// follows each HTTP/1.x connection's request heads for NewServer's check
// of their framing. It returns what srv.Serve returns.
func Serve(srv *http.Server, l net.Listener) error {
	return srv.Serve(h1framing.ServerListener(srv, l))
}

// ListenAndServe listens on srv.Addr (":http", or ":https" with
// srv.TLSConfig, when empty) and serves srv there with Serve.
func ListenAndServe(srv *http.Server) error {
	addr := srv.Addr
	if addr == "" {
		addr = ":http"
		if srv.TLSConfig != nil {
			addr = ":https"
		}
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return Serve(srv, l)
}
