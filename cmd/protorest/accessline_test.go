package main

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// slogLine is the line slog's handler (JSON or text) writes for r, as
// the access log wrote it before it formatted lines itself.
func slogLine(t testing.TB, r *accessRecord, json bool) []byte {
	var buf bytes.Buffer
	var h slog.Handler = slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})
	if json {
		h = slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})
	}
	rec := slog.NewRecord(r.time, r.level, "request", 0)
	rec.AddAttrs(
		slog.String(keyMethod, r.method),
		slog.String(keyRoute, r.route),
		slog.String(keyPath, r.path),
		slog.Int(keyStatus, r.status))
	if r.rpcSystem != "" {
		rec.AddAttrs(slog.String(keyRPCSystem, r.rpcSystem), slog.String(keyRPCProto, r.rpcProto))
	}
	if r.rpcMethod != "" {
		rec.AddAttrs(slog.String(keyRPCMethod, r.rpcMethod))
	}
	if r.rpcCode != "" {
		rec.AddAttrs(slog.String(keyRPCCode, r.rpcCode))
	}
	rec.AddAttrs(
		slog.Float64(keyDuration, r.duration.Seconds()),
		slog.Int64(keyRead, r.read),
		slog.Int64(keyWritten, r.written),
		slog.String(keyClient, r.client),
		slog.String(keyUserAgent, r.userAgent))
	if r.span.IsValid() {
		rec.AddAttrs(slog.String("trace_id", r.span.TraceID().String()), slog.String("span_id", r.span.SpanID().String()))
	}
	if r.err {
		rec.AddAttrs(slog.String("error.message", r.errMsg))
	}
	if err := h.Handle(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkLine requires appendAccessLine's line of r to be slog's, byte for
// byte, in both formats.
func checkLine(t testing.TB, r *accessRecord) {
	for _, json := range []bool{false, true} {
		got, want := appendAccessLine(nil, r, json), slogLine(t, r, json)
		if !bytes.Equal(got, want) {
			t.Errorf("json %v:\n got %s\nwant %s", json, got, want)
		}
	}
}

func TestAccessLineIsSlogs(t *testing.T) {
	span := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:  trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
	})
	at := time.Date(2026, 11, 27, 14, 2, 39, 120_456_789, time.UTC)
	for _, r := range []accessRecord{
		{time: at, level: slog.LevelInfo, method: "GET", route: "/v1/{name=shelves/*/books/*}", path: "/v1/shelves/1/books/007", status: 200,
			rpcMethod: "bench.library.v1.Library/GetBook", rpcCode: "OK", duration: 1234567 * time.Nanosecond, written: 212,
			client: "127.0.0.1", userAgent: "wrk"},
		{time: at, level: slog.LevelInfo, method: "POST", route: "/p.S/M", path: "/p.S/M", status: 200, rpcSystem: "grpc", rpcProto: "grpc_web",
			rpcMethod: "p.S/M", rpcCode: "OK", client: "127.0.0.1"},
		{time: at.In(time.FixedZone("X", 3600)), level: slog.LevelError, method: "POST", path: "/a b=c", status: 503, rpcCode: "UNAVAILABLE",
			duration: 300 * time.Nanosecond, read: 11, client: "::1", userAgent: "", span: span, err: true, errMsg: "upstream unavailable: \"dial\"\n\ttcp"},
		{time: at.Add(-at.Sub(at.Truncate(time.Second))), level: slog.LevelDebug, method: "GET", route: "/livez", path: "/livez", status: 200,
			duration: 0, client: "10.0.0.1", userAgent: "kube-probe/1.30 é \u2028 \x7f \x00 \xff <&>", err: true},
		{time: at, level: slog.LevelInfo, method: "GET", path: `/back\slash`, status: 404, duration: 25 * time.Hour, client: "ünï", userAgent: "\u00a0"},
	} {
		checkLine(t, &r)
	}
}

// FuzzAccessLine: for any strings and times, the access log's line is
// slog's, in both formats.
func FuzzAccessLine(f *testing.F) {
	f.Add("GET", "/v1/things", "curl/8.0", "not found", int64(1234567), int64(1_700_000_000_123_456_789))
	f.Add("", "", "", "", int64(0), int64(0))
	f.Add("P\x00ST", "/a b", "é\u2028\xff\"\\", "line\nbreak", int64(7), int64(-1))
	f.Add("GET", "=", "\t", "x=y", int64(1<<62), int64(9_000_000_000_000_000_000))
	f.Fuzz(func(t *testing.T, method, path, ua, msg string, ns, unixNano int64) {
		at := time.Unix(0, unixNano).UTC()
		if y := at.Year(); y < 0 || y >= 10000 {
			return // slog's JSON refuses such a time, and now is not one
		}
		r := &accessRecord{time: at, level: slog.LevelInfo, method: method, route: path, path: path, status: 200,
			duration: time.Duration(ns), client: ua, userAgent: ua, err: msg != "", errMsg: msg}
		checkLine(t, r)
	})
}

// BenchmarkAccessLine: the cost of formatting a line, alone.
func BenchmarkAccessLine(b *testing.B) {
	r := &accessRecord{time: time.Now(), level: slog.LevelInfo, method: "GET", route: "/v1/{name=shelves/*/books/*}", path: "/v1/shelves/1/books/007",
		status: 200, rpcMethod: "bench.library.v1.Library/GetBook", rpcCode: "OK", duration: 1234567 * time.Nanosecond, written: 212,
		client: "127.0.0.1", userAgent: "wrk"}
	for _, format := range []string{"text", "json"} {
		b.Run(format, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 1024)
			for b.Loop() {
				buf = appendAccessLine(buf[:0], r, format == "json")
			}
		})
	}
}
