package httperr

import (
	"fmt"
	"net/http"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestBusy: a Busy error is 503 UNAVAILABLE with its message and
// Retry-After: 1, also wrapped; other errors, 503s among them, get no
// Retry-After.
func TestBusy(t *testing.T) {
	t.Parallel()
	busy := Busy("no room: try again")
	for _, tt := range []struct {
		name  string
		err   error
		retry string
	}{
		{"busy", busy, "1"},
		{"wrapped", fmt.Errorf("call: %w", busy), "1"},
		{"another 503", status.Error(codes.Unavailable, "down"), ""},
		{"an error of New", New(http.StatusServiceUnavailable, codes.Unavailable, "x"), ""},
		{"none", nil, ""},
	} {
		h := http.Header{}
		SetRetryAfter(h, tt.err)
		if got := h.Get("Retry-After"); got != tt.retry || IsBusy(tt.err) != (tt.retry != "") {
			t.Errorf("%s: Retry-After %q, IsBusy %v; want %q", tt.name, got, IsBusy(tt.err), tt.retry)
		}
	}
	if Status(busy) != http.StatusServiceUnavailable || status.Code(busy) != codes.Unavailable || busy.Error() != "no room: try again" {
		t.Errorf("Busy: %d %v %q", Status(busy), status.Code(busy), busy.Error())
	}
}
