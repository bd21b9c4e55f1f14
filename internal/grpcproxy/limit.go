package grpcproxy

import (
	"net/http"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/classlimit"
)

// Limit returns next, the proxy, with the gRPC calls in flight at once
// capped by l's class classlimit.GRPC: a call over the cap ends at once
// with UNAVAILABLE (a Trailers-Only response), the upstream not called.
// A nil l caps nothing.
func Limit(next http.Handler, l *classlimit.Limiter) http.Handler {
	if l == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := l.Acquire(classlimit.GRPC); err != nil {
			writeStatus(w, status.Convert(err))
			return
		}
		defer l.Release(classlimit.GRPC)
		next.ServeHTTP(w, r)
	})
}

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
