package grpcproxy

import (
	"net/http"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// writeStatus ends a call with st before any message: a Trailers-Only
// response, its status in the headers. st's message must be printable
// ASCII without '%' (grpc-message is percent-encoded beyond that).
func writeStatus(w http.ResponseWriter, st *status.Status) {
	h := w.Header()
	h.Set("Content-Type", "application/grpc")
	h.Set("Grpc-Status", strconv.Itoa(int(st.Code())))
	if st.Code() != codes.OK {
		h.Set("Grpc-Message", st.Message())
	}
	w.WriteHeader(http.StatusOK)
}
