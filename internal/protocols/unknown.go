package protocols

import (
	"encoding/json"
	"net/http"

	"github.com/protorest/protorest/internal/text"
)

// Unimplemented answers a call of protocol p to a method the gateway does
// not serve, in p's terms: gRPC and gRPC-Web with UNIMPLEMENTED
// (grpc-status 12, a Trailers-Only response), Connect with 404 and, for
// a unary call, its error JSON.
func Unimplemented(w http.ResponseWriter, r *http.Request, p Protocol) {
	msg := "unknown method " + text.Truncate(r.URL.Path, 200)
	h := w.Header()
	switch p {
	case GRPC, GRPCWeb, GRPCWebText:
		ct := mediaType(r.Header.Get("Content-Type"))
		h.Set("Content-Type", ct)
		h.Set("Grpc-Status", "12")
		h.Set("Grpc-Message", grpcMessage(msg))
		w.WriteHeader(http.StatusOK)
	default:
		if mt := mediaType(r.Header.Get("Content-Type")); mt == "application/json" || mt == "application/proto" || r.Method == http.MethodGet {
			h.Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			quoted, _ := json.Marshal(msg)
			w.Write([]byte(`{"code":"unimplemented","message":` + string(quoted) + `}`))
			return
		}
		w.WriteHeader(http.StatusNotFound)
	}
}

// grpcMessage percent-encodes a Grpc-Message value, as gRPC asks: every
// byte outside printable ASCII, and '%'.
func grpcMessage(s string) string {
	const hex = "0123456789ABCDEF"
	var out []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c <= 0x7e && c != '%' {
			out = append(out, c)
			continue
		}
		out = append(out, '%', hex[c>>4], hex[c&15])
	}
	return string(out)
}
