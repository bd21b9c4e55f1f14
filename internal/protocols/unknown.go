package protocols

import (
	"encoding/json"
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/text"
)

// Unimplemented answers a call of protocol p to a method the gateway does
// not serve, with UNIMPLEMENTED in p's terms (WriteError).
func Unimplemented(w http.ResponseWriter, r *http.Request, p Protocol) {
	WriteError(w, r, p, status.Error(codes.Unimplemented, "unknown method "+text.Truncate(r.URL.Path, 200)))
}

// WriteError answers a call of protocol p that the gateway refuses before
// its handler runs (no such method, its class at its cap) with err's
// status, in p's terms: gRPC and gRPC-Web in a Trailers-Only response
// (grpc-status, grpc-message); Connect with the HTTP status of the code
// and, for a unary call, its error JSON.
func WriteError(w http.ResponseWriter, r *http.Request, p Protocol, err error) {
	st := status.Convert(err)
	h := w.Header()
	switch p {
	case GRPC, GRPCWeb, GRPCWebText:
		httperr.WriteGRPCStatus(w, mediaType(r.Header.Get("Content-Type")), st)
		return
	}
	code := connectHTTPStatus[st.Code()]
	if mt := mediaType(r.Header.Get("Content-Type")); mt == "application/json" || mt == "application/proto" || r.Method == http.MethodGet {
		body, _ := json.Marshal(struct {
			Code    string `json:"code"`
			Message string `json:"message,omitempty"`
		}{connectCodeName(st.Code()), st.Message()})
		h.Set("Content-Type", "application/json")
		w.WriteHeader(code)
		w.Write(body)
		return
	}
	w.WriteHeader(code)
}

// connectHTTPStatus is the HTTP status of each code in Connect's unary
// errors (connectrpc.com/docs/protocol, "Error Codes").
var connectHTTPStatus = map[codes.Code]int{
	codes.Canceled: 499, codes.Unknown: 500, codes.InvalidArgument: 400, codes.DeadlineExceeded: 504,
	codes.NotFound: 404, codes.AlreadyExists: 409, codes.PermissionDenied: 403, codes.ResourceExhausted: 429,
	codes.FailedPrecondition: 400, codes.Aborted: 409, codes.OutOfRange: 400, codes.Unimplemented: 404,
	codes.Internal: 500, codes.Unavailable: 503, codes.DataLoss: 500, codes.Unauthenticated: 401,
}

// connectCodeName is a code's name in Connect's error JSON: gRPC's name
// in snake case ("resource_exhausted"); "canceled" with one l.
func connectCodeName(c codes.Code) string {
	if c == codes.Canceled {
		return "canceled"
	}
	name := c.String()
	out := make([]byte, 0, len(name)+4)
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if 'A' <= ch && ch <= 'Z' {
			if i > 0 {
				out = append(out, '_')
			}
			ch += 'a' - 'A'
		}
		out = append(out, ch)
	}
	return string(out)
}
