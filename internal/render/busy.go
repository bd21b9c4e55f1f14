package render

import "github.com/protorest/protorest/internal/httperr"

// ErrBusy is the error of a response that found no room in the response
// budget (Config.Budget): 503, with a Retry-After header
// (httperr.SetRetryAfter), or for a message of a WebSocket, its close
// with 4014 (4000 + UNAVAILABLE).
var ErrBusy = httperr.Busy("too many responses in flight: try again")
