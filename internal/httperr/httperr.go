// Package httperr is the last stage of the request pipeline: every
// failure, the gateway's own and a method's, becomes a gRPC status, an
// HTTP status and a google.rpc.Status JSON body. One table maps codes to
// HTTP statuses; the gateway's own errors that need another status (404,
// 405, 413) carry it.
package httperr

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/jsonenc"
	"github.com/protorest/protorest/internal/jsonscan"
)

// A Handler writes err as the response to r (protorest.ErrorHandler).
type Handler = func(w http.ResponseWriter, r *http.Request, err error)

// FromCode maps a gRPC code to an HTTP status, per google/rpc/code.proto
// (and grpc-gateway). Unknown codes map to 500.
func FromCode(c codes.Code) int {
	switch c {
	case codes.OK:
		return http.StatusOK
	case codes.Canceled:
		return 499
	case codes.Unknown:
		return http.StatusInternalServerError
	case codes.InvalidArgument:
		return http.StatusBadRequest
	case codes.DeadlineExceeded:
		return http.StatusGatewayTimeout
	case codes.NotFound:
		return http.StatusNotFound
	case codes.AlreadyExists:
		return http.StatusConflict
	case codes.PermissionDenied:
		return http.StatusForbidden
	case codes.ResourceExhausted:
		return http.StatusTooManyRequests
	case codes.FailedPrecondition:
		return http.StatusBadRequest
	case codes.Aborted:
		return http.StatusConflict
	case codes.OutOfRange:
		return http.StatusBadRequest
	case codes.Unimplemented:
		return http.StatusNotImplemented
	case codes.Internal:
		return http.StatusInternalServerError
	case codes.Unavailable:
		return http.StatusServiceUnavailable
	case codes.DataLoss:
		return http.StatusInternalServerError
	case codes.Unauthenticated:
		return http.StatusUnauthorized
	}
	return http.StatusInternalServerError
}

// Status returns the HTTP status for err: the gateway's own choice for the
// errors it makes (New), else FromCode of its gRPC code.
func Status(err error) int {
	var he *httpError
	if errors.As(err, &he) {
		return he.code
	}
	return FromCode(ToStatus(err).Code())
}

// HasOwnStatus reports whether err is one the gateway made with an HTTP
// status of its own (New): a limit, no route.
func HasOwnStatus(err error) bool {
	var he *httpError
	return errors.As(err, &he)
}

// httpError is an error the gateway makes whose HTTP status is not the
// one the code table gives (405 for UNIMPLEMENTED, 413 for
// RESOURCE_EXHAUSTED).
type httpError struct {
	st    *status.Status
	code  int
	retry bool // Busy: answered with Retry-After
}

func (e *httpError) Error() string              { return e.st.Message() }
func (e *httpError) GRPCStatus() *status.Status { return e.st }

// New returns an error with gRPC code c and message msg, answered with
// httpStatus.
func New(httpStatus int, c codes.Code, msg string) error {
	return &httpError{st: status.New(c, msg), code: httpStatus}
}

// NotFound is the error of a path no route matches.
func NotFound() error { return New(http.StatusNotFound, codes.NotFound, "Not Found") }

// MethodNotAllowed is the error of a path that routes only for other
// methods; the caller sets the Allow header.
func MethodNotAllowed() error {
	return New(http.StatusMethodNotAllowed, codes.Unimplemented, "Method Not Allowed")
}

// TooLarge is the error of a request body (or one message of a request
// stream) over limit bytes.
func TooLarge(limit int64) error {
	return New(http.StatusRequestEntityTooLarge, codes.ResourceExhausted,
		"request body larger than the limit of "+FormatBytes(limit))
}

// TooLargeMessage is TooLarge with a message of its own (a stream's
// reader says which message).
func TooLargeMessage(msg string) error {
	return New(http.StatusRequestEntityTooLarge, codes.ResourceExhausted, msg)
}

// FormatBytes writes a size as a person reads it: 4 MiB, 16 KiB, 100 bytes.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// ToStatus converts any error to a status: errors that carry one (also
// wrapped, via errors.As) keep it; context errors become CANCELLED or
// DEADLINE_EXCEEDED; anything else is UNKNOWN.
func ToStatus(err error) *status.Status {
	if st, ok := status.FromError(err); ok {
		return st
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return status.FromContextError(err)
	}
	return status.New(codes.Unknown, err.Error())
}

// Write writes err as a google.rpc.Status JSON body with the status
// Status(err), resolving detail types with opts. A 401 also gets a
// WWW-Authenticate header with the message, as grpc-gateway does.
func Write(w http.ResponseWriter, err error, opts protojson.MarshalOptions) {
	st := ToStatus(err)
	code := Status(err)
	body := AppendJSON(nil, st, opts)
	h := w.Header()
	h.Set("Content-Type", codec.MediaJSON)
	if h.Get("Trailer") == "" {
		// With trailers declared the body goes chunked (HTTP/1.1), which a
		// Content-Length would prevent.
		h.Set("Content-Length", strconv.Itoa(len(body)))
	} else {
		h.Del("Content-Length")
	}
	if code == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", st.Message())
	}
	w.WriteHeader(code)
	w.Write(body)
}

// AppendJSON appends the JSON form of st. Each detail is marshalled on
// its own so that one unresolvable type does not lose the others: those
// are written with their "@type" and base64 "value".
func AppendJSON(b []byte, st *status.Status, opts protojson.MarshalOptions) []byte {
	p := st.Proto()
	b = append(b, `{"code":`...)
	b = strconv.AppendInt(b, int64(p.GetCode()), 10)
	b = append(b, `,"message":`...)
	b = jsonenc.AppendString(b, p.GetMessage())
	b = append(b, `,"details":[`...)
	for i, d := range p.GetDetails() {
		if i > 0 {
			b = append(b, ',')
		}
		if j, err := opts.Marshal(d); err == nil {
			b = append(b, jsonscan.Compact(j)...)
			continue
		}
		b = append(b, `{"@type":`...)
		b = jsonenc.AppendString(b, d.GetTypeUrl())
		b = append(b, `,"value":"`...)
		b = base64.StdEncoding.AppendEncode(b, d.GetValue())
		b = append(b, `"}`...)
	}
	return append(b, "]}"...)
}
