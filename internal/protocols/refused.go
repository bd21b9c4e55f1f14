package protocols

import (
	"encoding/binary"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

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

// statusWriter is w, noting the HTTP status of the answer, and the code
// of a Connect stream's end message when that is the body's first write
// (a stream refused writes nothing else).
type statusWriter struct {
	http.ResponseWriter
	code    int
	writes  int    // to the body, counted up to 2
	endLen  int    // the length an end message's prefix, the first write, gave
	endCode string // the code of an end message written first, or ""
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	// connect-go writes an envelope's prefix, then its data.
	switch w.writes {
	case 0:
		w.endLen = connectEndPrefix(w.Header().Get("Content-Type"), p)
		w.writes++
	case 1:
		if w.endLen > 0 && len(p) == w.endLen {
			w.endCode = connectEndCode(p)
		}
		w.writes++
	}
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
// it; for a Connect stream, its end message's code; UNKNOWN when none
// says.
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
	if c, ok := codeOfName(w.endCode); ok {
		return status.Error(c, "the call was refused")
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

// connectEndPrefix returns the length of a Connect stream's end message
// (application/connect+codec, flags 0x02) whose 5-byte prefix p is, or 0.
func connectEndPrefix(contentType string, p []byte) int {
	if len(p) != 5 || p[0] != 0x02 || !strings.HasPrefix(mediaType(contentType), "application/connect+") {
		return 0
	}
	return int(min(binary.BigEndian.Uint32(p[1:]), 1<<16))
}

// connectEndCode returns the error code of a Connect end message's JSON
// ({"error":{"code":…}}), or "".
func connectEndCode(data []byte) string {
	var end struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &end) != nil {
		return ""
	}
	return end.Error.Code
}

// codeOfName is the code whose name in Connect's errors is name
// (connectCodeName).
func codeOfName(name string) (codes.Code, bool) {
	if name == "" {
		return 0, false
	}
	for c := codes.Canceled; c <= codes.Unauthenticated; c++ {
		if connectCodeName(c) == name {
			return c, true
		}
	}
	return 0, false
}
