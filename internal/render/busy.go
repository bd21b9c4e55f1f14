package render

import (
	"net/http"

	"google.golang.org/grpc/codes"

	"github.com/protorest/protorest/internal/httperr"
)

// ErrBusy is the error of a response that found no room in the response
// budget (Config.Budget): 503, with a Retry-After header (set by the
// sink), or for a message of a WebSocket, its close with 4014 (4000 +
// UNAVAILABLE).
var ErrBusy = httperr.New(http.StatusServiceUnavailable, codes.Unavailable,
	"too many responses in flight: try again")

// retryAfter is the Retry-After header's value of ErrBusy, in seconds.
var retryAfter = []string{"1"}

// setRetryAfter adds Retry-After to the error response of a request
// that found no room in the budget.
func setRetryAfter(h http.Header, err error) {
	if err == ErrBusy {
		h["Retry-After"] = retryAfter
	}
}
