package protocols

import (
	"net/http"
	"net/url"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A call that connect-go refuses before the method is called (a message
// too large or malformed, an unknown codec or compression, a deadline
// passed while the request was read) never reaches the invoker, which
// tells the Recorder the outcome of every other call. statusWriter keeps
// what the answer says, for refusedOutcome: the HTTP status, and the
// headers (grpc-status, in the headers of a Trailers-Only response or in
// the trailers).

// statusWriter is w, noting the HTTP status of the answer.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Flush() {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// refusedOutcome is the outcome of a call refused before the method was
// called, as its answer says it: its grpc-status (gRPC, gRPC-Web's
// Trailers-Only answer), else its HTTP status as Connect's clients read
// it; UNKNOWN when neither says (a Connect stream's end message).
func (w *statusWriter) refusedOutcome() error {
	h := w.Header()
	code, msg := h.Get("Grpc-Status"), h.Get("Grpc-Message")
	if code == "" {
		code, msg = h.Get(http.TrailerPrefix+"Grpc-Status"), h.Get(http.TrailerPrefix+"Grpc-Message")
	}
	if n, err := strconv.Atoi(code); err == nil {
		if m, err := url.PathUnescape(msg); err == nil {
			msg = m
		}
		return status.Error(codes.Code(n), msg)
	}
	switch w.code {
	case http.StatusOK, 0:
		return status.Error(codes.Unknown, "the call was refused")
	case http.StatusBadRequest:
		return status.Error(codes.InvalidArgument, http.StatusText(w.code))
	case http.StatusUnauthorized:
		return status.Error(codes.Unauthenticated, http.StatusText(w.code))
	case http.StatusForbidden:
		return status.Error(codes.PermissionDenied, http.StatusText(w.code))
	case http.StatusNotFound, http.StatusUnsupportedMediaType, http.StatusMethodNotAllowed:
		return status.Error(codes.Unimplemented, http.StatusText(w.code))
	case http.StatusRequestTimeout, http.StatusGatewayTimeout:
		return status.Error(codes.DeadlineExceeded, http.StatusText(w.code))
	case http.StatusTooManyRequests, http.StatusRequestEntityTooLarge:
		return status.Error(codes.ResourceExhausted, http.StatusText(w.code))
	case http.StatusServiceUnavailable:
		return status.Error(codes.Unavailable, http.StatusText(w.code))
	}
	return status.Error(codes.Unknown, http.StatusText(w.code))
}
