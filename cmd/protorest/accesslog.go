package main

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"google.golang.org/grpc/codes"
)

// newLogger is the logger of --log-format and --log-level, on w.
func newLogger(w io.Writer, format, level string) *slog.Logger {
	var l slog.Level
	l.UnmarshalText([]byte(level)) // checked by the flag: debug, info, warn or error
	opts := &slog.HandlerOptions{Level: l}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// accessLog logs a line per request at info after next has answered it:
//
//	method, path, route (the template that matched: r.Pattern, which the
//	gateway sets; "" when none did or for a proxied gRPC call), status,
//	grpc_code, bytes (of the body written), duration, remote.
//
// grpc_code costs nothing to find: the Grpc-Status header or trailer when
// the response has one (gRPC calls, streams asked with TE: trailers), else
// the leading "code" of an error body, which the gateway writes as
// {"code":N,…}; else OK below 400, and for an error response with another
// body (a custom route's) the code google/rpc/code.proto maps to its HTTP
// status, the mapping the gateway uses the other way (statusCode).
func accessLog(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.String("route", r.Pattern),
			slog.Int("status", status),
			slog.String("grpc_code", rec.grpcCode(status).String()),
			slog.Int64("bytes", rec.bytes),
			slog.Duration("duration", time.Since(start)),
			slog.String("remote", r.RemoteAddr),
		)
	})
}

// recorder is the ResponseWriter accessLog gives the handler: it counts
// what is written, keeps the first bytes of an error body, and passes
// flushes, hijacks and the rest of http.ResponseController through
// (Unwrap), so that streams still stream and WebSockets still upgrade.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	head   [16]byte // the start of an error body
	nhead  int
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 || r.status < 200 { // 1xx are informational
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.status >= 400 && r.nhead < len(r.head) {
		r.nhead += copy(r.head[r.nhead:], p)
	}
	n, err := r.ResponseWriter.Write(p)
	r.bytes += int64(n)
	return n, err
}

// Flush is http.Flusher, which grpc.Server.ServeHTTP (the gRPC proxy)
// asserts rather than asking a ResponseController.
func (r *recorder) Flush() {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	http.NewResponseController(r.ResponseWriter).Flush()
}

// Hijack is http.Hijacker, for WebSocket libraries that assert it.
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(r.ResponseWriter).Hijack()
	if err == nil && r.status == 0 {
		r.status = http.StatusSwitchingProtocols
	}
	return conn, rw, err
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// grpcCode is the gRPC code of the response (see accessLog).
func (r *recorder) grpcCode(status int) codes.Code {
	h := r.Header()
	for _, v := range [][]string{h["Grpc-Status"], h[http.TrailerPrefix+"Grpc-Status"]} {
		if len(v) > 0 {
			if n, err := strconv.Atoi(v[0]); err == nil {
				return codes.Code(n)
			}
		}
	}
	if status < 400 {
		return codes.OK
	}
	if c, ok := leadingCode(r.head[:r.nhead]); ok {
		return c
	}
	return statusCode(status)
}

// leadingCode reads N from a body that starts {"code":N.
func leadingCode(b []byte) (codes.Code, bool) {
	const prefix = `{"code":`
	if len(b) <= len(prefix) || string(b[:len(prefix)]) != prefix {
		return 0, false
	}
	n, i := 0, len(prefix)
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9' && i < len(prefix)+3; i++ {
		n = n*10 + int(b[i]-'0')
	}
	if i == len(prefix) {
		return 0, false
	}
	return codes.Code(n), true
}

// statusCode is the gRPC code of an HTTP error status, the inverse of the
// gateway's table where it is one to one, and of its nearest for the rest.
func statusCode(status int) codes.Code {
	switch status {
	case http.StatusBadRequest:
		return codes.InvalidArgument
	case http.StatusUnauthorized:
		return codes.Unauthenticated
	case http.StatusForbidden:
		return codes.PermissionDenied
	case http.StatusNotFound:
		return codes.NotFound
	case http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return codes.Unimplemented
	case http.StatusConflict:
		return codes.Aborted
	case http.StatusRequestEntityTooLarge, http.StatusTooManyRequests:
		return codes.ResourceExhausted
	case 499:
		return codes.Canceled
	case http.StatusServiceUnavailable:
		return codes.Unavailable
	case http.StatusGatewayTimeout:
		return codes.DeadlineExceeded
	}
	return codes.Unknown
}
