package protorest

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest/internal/jsonenc"
	"github.com/protorest/protorest/internal/jsonscan"
)

// An ErrorHandler writes err as the response to r. err always carries a
// gRPC status: status.Convert(err) gives its code, message and details,
// and HTTPStatus(err) the HTTP status the gateway chose.
type ErrorHandler func(w http.ResponseWriter, r *http.Request, err error)

// HTTPStatusFromCode maps a gRPC code to an HTTP status, per
// google/rpc/code.proto (and grpc-gateway). Unknown codes map to 500.
func HTTPStatusFromCode(c codes.Code) int {
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

// HTTPStatus returns the HTTP status for err: the gateway's own choice for
// the errors it makes (404 no route, 405 wrong method, 413 body too large),
// else HTTPStatusFromCode of its gRPC code.
func HTTPStatus(err error) int {
	var he *httpError
	if errors.As(err, &he) {
		return he.code
	}
	return HTTPStatusFromCode(toStatus(err).Code())
}

// httpError is an error the gateway makes whose HTTP status is not the
// one the code table gives (405 for UNIMPLEMENTED, 413 for
// RESOURCE_EXHAUSTED).
type httpError struct {
	st   *status.Status
	code int
}

func (e *httpError) Error() string              { return e.st.Message() }
func (e *httpError) GRPCStatus() *status.Status { return e.st }

func newHTTPError(httpStatus int, c codes.Code, msg string) error {
	return &httpError{st: status.New(c, msg), code: httpStatus}
}

// toStatus converts any error to a status: errors that carry one (also
// wrapped, via errors.As) keep it; context errors become CANCELLED or
// DEADLINE_EXCEEDED; anything else is UNKNOWN.
func toStatus(err error) *status.Status {
	if st, ok := status.FromError(err); ok {
		return st
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return status.FromContextError(err)
	}
	return status.New(codes.Unknown, err.Error())
}

// DefaultErrorHandler writes err as a google.rpc.Status JSON body,
// {"code":5,"message":"…","details":[…]}, with the status HTTPStatus(err).
// Details are resolved with protoregistry.GlobalTypes (a Gateway without
// WithErrorHandler uses its WithTypes instead); those whose types cannot be
// resolved are written with their "@type" and base64 "value". A 401 also gets a WWW-Authenticate header
// with the message, as grpc-gateway does.
func DefaultErrorHandler(w http.ResponseWriter, r *http.Request, err error) {
	writeStatus(w, err, protojson.MarshalOptions{})
}

// writeStatus is DefaultErrorHandler with the options that resolve detail
// types (a Gateway passes its WithTypes).
func writeStatus(w http.ResponseWriter, err error, opts protojson.MarshalOptions) {
	st := toStatus(err)
	code := HTTPStatus(err)
	body := appendStatusJSON(nil, st, opts)
	h := w.Header()
	h.Set("Content-Type", "application/json")
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

// appendStatusJSON appends the JSON form of st. Each detail is marshalled
// on its own so that one unresolvable type does not lose the others.
func appendStatusJSON(b []byte, st *status.Status, opts protojson.MarshalOptions) []byte {
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
