package main

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"

	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/semconv/v1.43.0/httpconv"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest"
	"github.com/protorest/protorest/otelprotorest"
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

// accessLog logs a line per request after next has answered it, at
// error for a 5xx and at info otherwise; a request of one of the probes
// (a route whose pattern is in probes) at debug whatever its status, or
// with logProbes false not at all. The line has the attribute names of
// OpenTelemetry's semantic conventions, taken from the semconv package
// otelhttp and otelprotorest use, so that the line and the metrics and
// spans of the same request agree:
//
//	http.request.method, http.route (the template that matched: r.Pattern,
//	which the gateway sets; "" when none did or for a proxied gRPC call),
//	url.path, http.response.status_code, rpc.method ("pkg.Svc/Method", when
//	the route calls one), rpc.response.status_code (its gRPC code,
//	"NOT_FOUND"; also for an error the gateway answered itself, and for a
//	proxied gRPC call), http.server.request.duration (seconds),
//	http.request.body.size and http.response.body.size (bytes read and
//	written), client.address, user_agent.original, trace_id and span_id
//	(when the request is traced), error.message (when it failed).
//
// The outcome comes from the protorest.CallInfo the gateway fills in: the
// one already in the request's context (otelprotorest.NewHandler's), or
// one of its own.
func accessLog(log *slog.Logger, next http.Handler, probes []string, logProbes bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ci, observed := protorest.CallInfoFromContext(r.Context())
		call := r
		if !observed {
			ci = new(protorest.CallInfo)
			call = r.WithContext(protorest.NewCallInfoContext(r.Context(), ci))
		}
		var body *countingBody
		if r.Body != nil && r.Body != http.NoBody {
			body = &countingBody{ReadCloser: r.Body}
			if call == r {
				call = r.WithContext(r.Context())
			}
			call.Body = body
		}
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, call)
		r.Pattern = call.Pattern
		code := rec.status
		if code == 0 {
			code = http.StatusOK
		}
		level := slog.LevelInfo
		switch {
		case slices.Contains(probes, call.Pattern):
			if !logProbes {
				return
			}
			level = slog.LevelDebug
		case code >= 500:
			level = slog.LevelError
		}
		if !log.Enabled(r.Context(), level) {
			return
		}
		attrs := make([]slog.Attr, 0, 16)
		attrs = append(attrs,
			slog.String(string(semconv.HTTPRequestMethodKey), r.Method),
			slog.String(string(semconv.HTTPRouteKey), call.Pattern),
			slog.String(string(semconv.URLPathKey), r.URL.Path),
			slog.Int(string(semconv.HTTPResponseStatusCodeKey), code))
		if ci.Route != nil && ci.Route.FullMethod != "" {
			attrs = append(attrs, slog.String(string(semconv.RPCMethodKey), ci.Route.FullMethod[1:]))
		}
		if c, ok := rec.grpcCode(ci); ok {
			attrs = append(attrs, slog.String(string(semconv.RPCResponseStatusCodeKey), otelprotorest.StatusCodeName(c)))
		}
		var read int64
		if body != nil {
			read = body.n
		}
		attrs = append(attrs,
			slog.Float64(httpconv.ServerRequestDuration{}.Name(), time.Since(start).Seconds()),
			slog.Int64(string(semconv.HTTPRequestBodySizeKey), read),
			slog.Int64(string(semconv.HTTPResponseBodySizeKey), rec.bytes),
			slog.String(string(semconv.ClientAddressKey), clientAddress(r.RemoteAddr)),
			slog.String(string(semconv.UserAgentOriginalKey), r.UserAgent()))
		if sc := trace.SpanContextFromContext(r.Context()); sc.IsValid() {
			attrs = append(attrs, slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
		}
		if ci.Err != nil {
			attrs = append(attrs, slog.String("error.message", errorMessage(ci.Err)))
		}
		log.LogAttrs(r.Context(), level, "request", attrs...)
	})
}

// errorMessage is the message of a request's error for the log: its
// status's, or for a call that did not reach the upstream, whose status
// says only "upstream unavailable", grpc-go's cause as well.
func errorMessage(err error) string {
	if errors.Is(err, protorest.ErrBackendUnreachable) {
		return err.Error()
	}
	return status.Convert(err).Message()
}

// clientAddress is the host of a RemoteAddr ("192.0.2.1:1234").
func clientAddress(remote string) string {
	if host, _, err := net.SplitHostPort(remote); err == nil {
		return host
	}
	return remote
}

// countingBody counts the bytes read from a request body.
type countingBody struct {
	io.ReadCloser
	n int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

// recorder is the ResponseWriter accessLog gives the handler: it counts
// what is written, and passes
// flushes, hijacks and the rest of http.ResponseController through
// (Unwrap), so that streams still stream and WebSockets still upgrade.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
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

// grpcCode is the gRPC code of the outcome, if there is one: the
// call's or the gateway's error (ci), else a proxied gRPC call's
// Grpc-Status (header or trailer). A custom route's response has none.
func (r *recorder) grpcCode(ci *protorest.CallInfo) (codes.Code, bool) {
	if ci.Err != nil || ci.Route != nil && ci.Route.FullMethod != "" {
		return ci.Code, true
	}
	h := r.Header()
	for _, v := range [][]string{h["Grpc-Status"], h[http.TrailerPrefix+"Grpc-Status"]} {
		if len(v) > 0 {
			if n, err := strconv.Atoi(v[0]); err == nil {
				return codes.Code(n), true
			}
		}
	}
	return 0, false
}
