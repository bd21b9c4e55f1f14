package protorest

import (
	"net/http"
	"time"
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
//     (ServeTLS, ListenAndServeTLS) or unencrypted with prior knowledge
//     (h2c) on a plain listener, as gRPC clients speak it; HTTP/1.1 as
//     well.
//
// ReadTimeout and WriteTimeout stay unset: they bound a whole request or
// response, streams included; the gateway bounds body reads and idle
// streams itself (WithReadIdleTimeout, WithStreamIdleTimeout). Change any
// field before serving.
func NewServer(addr string, h http.Handler) *http.Server {
	srv := &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		HTTP2:             &http.HTTP2Config{MaxConcurrentStreams: 100},
		Protocols:         new(http.Protocols),
	}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetHTTP2(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	return srv
}
