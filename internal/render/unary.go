package render

import (
	"net/http"
	"sync"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// Unary is the sink of a call with one response: a unary call, or a
// client stream. It keeps the response until the call finishes, then
// renders it, or the error, as one HTTP response. A Unary is reused
// (Reset) by a pooled exchange.
type Unary struct {
	Reply

	mu       sync.Mutex
	response proto.Message
	finished bool
}

// Reset makes u the sink of a new call answered by a.
func (u *Unary) Reset(a Reply) {
	u.Reply, u.response, u.finished = a, nil, false
}

// SendHeader does nothing: the header goes with the response.
func (u *Unary) SendHeader(metadata.MD) error { return nil }

// Send keeps msg, the call's response.
func (u *Unary) Send(msg proto.Message, _ metadata.MD) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.finished || u.response != nil {
		return ErrSecondResponse
	}
	u.response = msg
	return nil
}

// Finish renders the response, or err.
func (u *Unary) Finish(err error, header, trailer metadata.MD) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.finished {
		return
	}
	u.finished = true
	if err == nil && u.response == nil {
		err = ErrNoResponse
	}
	u.Respond(u.response, err, header, trailer)
}

// InterruptRead cuts a read of the request body in progress short.
func (u *Unary) InterruptRead() func() {
	return interruptRead(http.NewResponseController(u.W))
}
