package floorproxy

import (
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// writeError writes err as the gateways do: a google.rpc.Status body (no
// details) and the HTTP status of its code.
func writeError(w http.ResponseWriter, err error) {
	st := status.Convert(err)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpStatus(st.Code()))
	w.Write(appendStatus(nil, st))
}

// appendStatus appends the JSON of a google.rpc.Status without details.
func appendStatus(out []byte, st *status.Status) []byte {
	out = append(out, `{"code":`...)
	out = strconv.AppendInt(out, int64(st.Code()), 10)
	out = append(out, `,"message":`...)
	out, _ = appendJSONString(out, []byte(strings.ToValidUTF8(st.Message(), "\uFFFD")))
	return append(out, `,"details":[]}`...)
}

// httpStatus maps the codes the Library returns, and those of an
// unreachable backend, to HTTP statuses.
func httpStatus(c codes.Code) int {
	switch c {
	case codes.InvalidArgument:
		return http.StatusBadRequest
	case codes.NotFound:
		return http.StatusNotFound
	case codes.Unavailable:
		return http.StatusServiceUnavailable
	case codes.DeadlineExceeded:
		return http.StatusGatewayTimeout
	default:
		return http.StatusInternalServerError
	}
}
