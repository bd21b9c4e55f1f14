package httperr

import (
	"errors"
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Busy returns the error of a request refused because what it needs is
// all taken for now (room for its response, a slot of its class of
// calls, a stream to the backend): 503 UNAVAILABLE with msg, which
// SetRetryAfter answers with "Retry-After: 1".
func Busy(msg string) error {
	return &httpError{st: status.New(codes.Unavailable, msg), code: http.StatusServiceUnavailable, retry: true}
}

// IsBusy reports whether err is, or wraps, an error of Busy.
func IsBusy(err error) bool {
	var he *httpError
	return errors.As(err, &he) && he.retry
}

// retryAfter is the Retry-After header's value of a Busy error, in
// seconds.
var retryAfter = []string{"1"}

// SetRetryAfter sets "Retry-After: 1" in h when err IsBusy.
func SetRetryAfter(h http.Header, err error) {
	if IsBusy(err) {
		h["Retry-After"] = retryAfter
	}
}
