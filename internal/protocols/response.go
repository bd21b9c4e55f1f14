package protocols

import (
	"sync"

	"connectrpc.com/connect"
)

// responses keeps the connect.Responses of unary calls that have ended,
// with their header and trailer maps: connect-go asks every response for
// both (Header, Trailer), which makes each map the first time.
var responses = sync.Pool{New: func() any { return new(connect.Response[outbound]) }}

// getResponse returns a pooled response carrying msg, its header and
// trailer empty.
func getResponse(msg *outbound) *connect.Response[outbound] {
	res := responses.Get().(*connect.Response[outbound])
	clear(res.Header())
	clear(res.Trailer())
	res.Msg = msg
	return res
}

// putResponse gives res back once connect-go has written it.
func putResponse(res *connect.Response[outbound]) {
	res.Msg = nil
	responses.Put(res)
}
