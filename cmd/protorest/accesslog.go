package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

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

// An accessLogger writes the access log's lines to serve's log, in its
// format (JSON or text) from its level on.
type accessLogger struct {
	out   *logWriter
	json  bool
	level slog.Level // the least level written
	// traced says that a handler before the access log may trace the
	// requests (OpenTelemetry's): only then does a line look for a span.
	traced bool
}

// newAccessLogger is the access log of --log-format and --log-level, on
// out.
func newAccessLogger(out *logWriter, format, level string) *accessLogger {
	var l slog.Level
	l.UnmarshalText([]byte(level)) // checked by the flag: debug, info, warn or error
	return &accessLogger{out: out, json: format == "json", level: l}
}

// lineBuffers hold the lines being formatted.
var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// accessLog logs a line per request after next has answered it, at
// error for a 5xx and at info otherwise; a request of one of the probes
// (a route whose pattern is in probes) at debug whatever its status, or
// with logProbes false not at all. The line is the one slog's handler
// of --log-format would write for the record "request" (appendAccessLine
// formats it without slog, and the logWriter writes it off the request
// path), with the attribute names of OpenTelemetry's semantic
// conventions, taken from the semconv package otelhttp and
// otelprotorest use, so that the line and the metrics and spans of the
// same request agree:
//
//	http.request.method, http.route (the template that matched: r.Pattern,
//	which the gateway sets; "" when none did or for a proxied gRPC call),
//	url.path, http.response.status_code, rpc.system.name and
//	protorest.rpc.protocol (a Connect, gRPC-Web or gRPC call at a method's
//	path: "connectrpc" and "connect", else "grpc" and "grpc_web" or
//	"grpc"), rpc.method ("pkg.Svc/Method", when
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
func accessLog(al *accessLogger, next http.Handler, probes []string, logProbes bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		st := accessStates.Get().(*accessState)
		*st = accessState{rec: recorder{ResponseWriter: w}}
		defer accessStates.Put(st)
		ci, call := requestCallInfo(r, &st.ci)
		var body *countingBody
		if r.Body != nil && r.Body != http.NoBody {
			body = &st.body
			body.ReadCloser = r.Body
			if call == r {
				// Counted in place, not in a copy of the request:
				// net/http closes the body it keeps, not r.Body.
				defer func(b io.ReadCloser) { r.Body = b }(r.Body)
			}
			call.Body = body
		}
		rec := &st.rec
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
		if level < al.level {
			return
		}
		now := time.Now()
		line := accessRecord{
			time: now, level: level, method: r.Method, route: call.Pattern, path: r.URL.Path, status: code,
			duration: now.Sub(start), written: rec.bytes, client: clientAddress(r.RemoteAddr), userAgent: r.UserAgent(),
		}
		if al.traced {
			line.span = trace.SpanContextFromContext(r.Context())
		}
		if ci.Route != nil && ci.Route.FullMethod != "" {
			line.rpcMethod = ci.Route.FullMethod[1:]
			line.rpcSystem, line.rpcProto = rpcSystem(ci.Route.Protocol), ci.Route.Protocol
		}
		if c, ok := rec.grpcCode(ci); ok {
			line.rpcCode = otelprotorest.StatusCodeName(c)
		}
		if body != nil {
			line.read = body.n
		}
		if ci.Err != nil {
			line.err, line.errMsg = true, errorMessage(ci.Err)
		}
		b := lineBuffers.Get().(*[]byte)
		*b = appendAccessLine((*b)[:0], &line, al.json)
		al.out.Line(*b)
		lineBuffers.Put(b)
	})
}

// requestCallInfo returns the CallInfo the gateway fills in for r, and
// the request to give it: r itself when r's context already holds one
// for it alone, that of a handler before this one (otelprotorest's) or,
// on HTTP/1.x, its connection's (accessConnContext), which serves one
// request at a time; else own, in a copy of r whose context holds it.
func requestCallInfo(r *http.Request, own *protorest.CallInfo) (*protorest.CallInfo, *http.Request) {
	ctx := r.Context()
	ci, ok := protorest.CallInfoFromContext(ctx)
	if ok {
		conn, _ := ctx.Value(accessConnKey{}).(*accessConn)
		switch {
		case conn == nil || ci != &conn.ci:
			return ci, r // another handler's
		case r.ProtoMajor == 1:
			*ci = protorest.CallInfo{}
			return ci, r
		}
	}
	return own, r.WithContext(protorest.NewCallInfoContext(ctx, own))
}

// An accessConn is the CallInfo of the requests of an HTTP/1.x
// connection, which come one at a time, each answered before the next is
// read: its context holds it (accessConnContext), so that a request needs
// no context, and no copy of itself, to carry one. An HTTP/2
// connection's requests, which come at once, each get their own.
type accessConn struct{ ci protorest.CallInfo }

type accessConnKey struct{}

// accessConnContext is the http.Server's ConnContext for the access log:
// ctx with the connection's accessConn, after next's (the server's own
// ConnContext, or nil).
func accessConnContext(next func(context.Context, net.Conn) context.Context) func(context.Context, net.Conn) context.Context {
	return func(ctx context.Context, c net.Conn) context.Context {
		if next != nil {
			ctx = next(ctx, c)
		}
		conn := new(accessConn)
		return context.WithValue(protorest.NewCallInfoContext(ctx, &conn.ci), accessConnKey{}, conn)
	}
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

// accessStates hold the accessState of the requests being served: no
// part of one is used once its request's handler has returned (the
// gateway's CallInfo is final then).
var accessStates = sync.Pool{New: func() any { return new(accessState) }}

// accessState is what accessLog keeps of a request: its recorder, and
// its CallInfo and request body counter when it needs them.
type accessState struct {
	rec  recorder
	ci   protorest.CallInfo
	body countingBody
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

// rpcSystem is rpc.system.name of a call in protocol p (protorest.Route's
// Protocol): "" for REST.
func rpcSystem(p string) string {
	switch p {
	case "":
		return ""
	case "connect":
		return "connectrpc"
	}
	return "grpc"
}
