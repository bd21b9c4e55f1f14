package httperr

import (
	"net/http"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// WriteGRPCStatus ends a gRPC or gRPC-Web call with st before any
// message: a Trailers-Only response of contentType, with grpc-status and,
// unless st is OK, grpc-message (GRPCMessage) in its headers.
func WriteGRPCStatus(w http.ResponseWriter, contentType string, st *status.Status) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Grpc-Status", strconv.Itoa(int(st.Code())))
	if st.Code() != codes.OK {
		h.Set("Grpc-Message", GRPCMessage(st.Message()))
	}
	w.WriteHeader(http.StatusOK)
}

// GRPCMessage percent-encodes s as a grpc-message value, as gRPC's
// PROTOCOL-HTTP2 asks: every byte outside printable ASCII, and '%'. A
// message that needs none is returned as it is.
func GRPCMessage(s string) string {
	i := 0
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x7e && s[i] != '%' {
		i++
	}
	if i == len(s) {
		return s
	}
	const hex = "0123456789ABCDEF"
	out := make([]byte, i, len(s)+16)
	copy(out, s)
	for ; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c <= 0x7e && c != '%' {
			out = append(out, c)
			continue
		}
		out = append(out, '%', hex[c>>4], hex[c&15])
	}
	return string(out)
}
