package timeouts

import (
	"net/http"
	"time"
)

// SetWriteDeadline is http.ResponseController's SetWriteDeadline, without
// the allocation of its error for a writer that cannot: it reports
// whether w (or a writer it unwraps to) set the deadline. Past it a write
// fails, and the stream (HTTP/2) or the connection (HTTP/1.x) is reset;
// the zero time lifts it.
func SetWriteDeadline(w http.ResponseWriter, t time.Time) bool {
	for {
		switch x := w.(type) {
		case interface{ SetWriteDeadline(time.Time) error }:
			return x.SetWriteDeadline(t) == nil
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return false
		}
	}
}
