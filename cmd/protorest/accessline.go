package main

import (
	"encoding/hex"
	"log/slog"
	"math"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/semconv/v1.43.0/httpconv"
	"go.opentelemetry.io/otel/trace"
)

// An accessRecord is the content of an access log line.
type accessRecord struct {
	time      time.Time
	level     slog.Level
	method    string
	route     string
	path      string
	status    int
	rpcSystem string // a call at a method's canonical path: "connectrpc" or "grpc"; "" for REST
	rpcProto  string // its protocol: "connect", "grpc_web", "grpc"
	rpcMethod string // "" for none
	rpcCode   string // "" for none
	duration  time.Duration
	read      int64
	written   int64
	client    string
	userAgent string
	span      trace.SpanContext // when valid, trace_id and span_id
	err       bool              // with error.message errMsg
	errMsg    string
}

// The attribute names of the line: OpenTelemetry's semantic conventions.
var (
	keyMethod    = string(semconv.HTTPRequestMethodKey)
	keyRoute     = string(semconv.HTTPRouteKey)
	keyPath      = string(semconv.URLPathKey)
	keyStatus    = string(semconv.HTTPResponseStatusCodeKey)
	keyRPCSystem = string(semconv.RPCSystemNameKey)
	keyRPCProto  = "protorest.rpc.protocol"
	keyRPCMethod = string(semconv.RPCMethodKey)
	keyRPCCode   = string(semconv.RPCResponseStatusCodeKey)
	keyDuration  = httpconv.ServerRequestDuration{}.Name()
	keyRead      = string(semconv.HTTPRequestBodySizeKey)
	keyWritten   = string(semconv.HTTPResponseBodySizeKey)
	keyClient    = string(semconv.ClientAddressKey)
	keyUserAgent = string(semconv.UserAgentOriginalKey)
)

// appendAccessLine appends the line of r, ending in a newline, exactly as
// slog's JSONHandler (json) or TextHandler writes the record "request"
// with r's attributes; but without building a slog.Record, its
// attributes or a handler state, which cost more than the rest of the
// log together.
func appendAccessLine(b []byte, r *accessRecord, json bool) []byte {
	e := lineEncoder{b: b, json: json}
	e.begin(r.time, r.level)
	e.str(keyMethod, r.method)
	e.str(keyRoute, r.route)
	e.str(keyPath, r.path)
	e.int(keyStatus, int64(r.status))
	if r.rpcSystem != "" {
		e.str(keyRPCSystem, r.rpcSystem)
		e.str(keyRPCProto, r.rpcProto)
	}
	if r.rpcMethod != "" {
		e.str(keyRPCMethod, r.rpcMethod)
	}
	if r.rpcCode != "" {
		e.str(keyRPCCode, r.rpcCode)
	}
	e.float(keyDuration, r.duration.Seconds())
	e.int(keyRead, r.read)
	e.int(keyWritten, r.written)
	e.str(keyClient, r.client)
	e.str(keyUserAgent, r.userAgent)
	if r.span.IsValid() {
		tid, sid := r.span.TraceID(), r.span.SpanID()
		e.hex("trace_id", tid[:])
		e.hex("span_id", sid[:])
	}
	if r.err {
		e.str("error.message", r.errMsg)
	}
	return e.end()
}

// A lineEncoder appends a log line's attributes as slog's JSON or text
// handler does.
type lineEncoder struct {
	b    []byte
	json bool
}

func (e *lineEncoder) begin(t time.Time, level slog.Level) {
	if e.json {
		e.b = append(e.b, `{"time":"`...)
		e.b = t.AppendFormat(e.b, time.RFC3339Nano)
		e.b = append(e.b, `","level":"`...)
		e.b = append(e.b, level.String()...)
		e.b = append(e.b, `","msg":"request"`...)
		return
	}
	e.b = append(e.b, "time="...)
	e.b = appendRFC3339Millis(e.b, t)
	e.b = append(e.b, " level="...)
	e.b = append(e.b, level.String()...)
	e.b = append(e.b, " msg=request"...)
}

func (e *lineEncoder) end() []byte {
	if e.json {
		e.b = append(e.b, '}')
	}
	return append(e.b, '\n')
}

// key appends a separator and key (which needs no quoting or escaping).
func (e *lineEncoder) key(k string) {
	if e.json {
		e.b = append(e.b, ',', '"')
		e.b = append(e.b, k...)
		e.b = append(e.b, '"', ':')
		return
	}
	e.b = append(e.b, ' ')
	e.b = append(e.b, k...)
	e.b = append(e.b, '=')
}

func (e *lineEncoder) str(k, v string) {
	e.key(k)
	switch {
	case e.json:
		e.b = append(e.b, '"')
		e.b = appendEscapedJSONString(e.b, v)
		e.b = append(e.b, '"')
	case needsQuoting(v):
		e.b = appendQuote(e.b, v)
	default:
		e.b = append(e.b, v...)
	}
}

func (e *lineEncoder) int(k string, v int64) {
	e.key(k)
	e.b = strconv.AppendInt(e.b, v, 10)
}

// float appends v as slog does: strconv's shortest 'g' form in text,
// encoding/json's form in JSON.
func (e *lineEncoder) float(k string, v float64) {
	e.key(k)
	if !e.json {
		e.b = strconv.AppendFloat(e.b, v, 'g', -1, 64)
		return
	}
	format := byte('f')
	if abs := math.Abs(v); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	e.b = strconv.AppendFloat(e.b, v, format, -1, 64)
	if n := len(e.b); format == 'e' && n >= 4 && e.b[n-4] == 'e' && e.b[n-3] == '-' && e.b[n-2] == '0' {
		e.b[n-2] = e.b[n-1] // e-07 is e-7
		e.b = e.b[:n-1]
	}
}

// hex appends id in lower-case hexadecimal, as a string.
func (e *lineEncoder) hex(k string, id []byte) {
	e.key(k)
	if e.json {
		e.b = append(e.b, '"')
	}
	e.b = hex.AppendEncode(e.b, id)
	if e.json {
		e.b = append(e.b, '"')
	}
}

// appendRFC3339Millis is slog's text form of a time: RFC 3339 with
// exactly three fractional digits.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...) // drop the 4th digit
}

// appendQuote is strconv.AppendQuote, quicker for printable ASCII (a
// route template such as /v1/{name=shelves/*} needs quotes for its '='):
// only '"' and '\\' are escaped then.
func appendQuote(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' {
			return strconv.AppendQuote(b, s)
		}
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b = append(b, '\\', c)
		} else {
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// jsonSafe reports whether an ASCII byte goes into a JSON string as it
// is: printable, and neither '"' nor '\\'.
func jsonSafe(b byte) bool { return b >= ' ' && b != '"' && b != '\\' }

// needsQuoting is slog's text handler's rule: an empty string, or one
// with a space, '=', a byte JSON would escape (a backslash aside), or a
// rune that is not printable or is a space, is quoted.
func needsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b != '\\' && (b == ' ' || b == '=' || !jsonSafe(b)) {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

// appendEscapedJSONString is slog's JSON string escaping: '"', '\\' and
// control characters escaped, invalid UTF-8 as U+FFFD, U+2028 and U+2029
// escaped; HTML's characters as they are.
func appendEscapedJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonSafe(c) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, `\u202`...)
			b = append(b, hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(b, s[start:]...)
}
