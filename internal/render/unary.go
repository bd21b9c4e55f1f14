package render

import (
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
	one      One
	finished bool
}

// One is the response of a call that is not server-streaming, kept until
// the call finishes (by the HTTP and the WebSocket sinks alike). Its
// user holds the lock.
type One struct{ msg proto.Message }

// Keep keeps msg; a second response is an error.
func (o *One) Keep(msg proto.Message) error {
	if o.msg != nil {
		return ErrSecondResponse
	}
	o.msg = msg
	return nil
}

// Outcome is the call's response, given its error: none and no error is
// ErrNoResponse.
func (o *One) Outcome(err error) (proto.Message, error) {
	if err == nil && o.msg == nil {
		err = ErrNoResponse
	}
	return o.msg, err
}

// Reset makes u the sink of a new call answered by a.
func (u *Unary) Reset(a Reply) {
	u.Reply, u.one, u.finished = a, One{}, false
}

// SendHeader does nothing: the header goes with the response.
func (u *Unary) SendHeader(metadata.MD) error { return nil }

// Send keeps msg, the call's response.
func (u *Unary) Send(msg proto.Message, _ metadata.MD) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.finished {
		return ErrSecondResponse
	}
	return u.one.Keep(msg)
}

// Finish renders the response, or err.
func (u *Unary) Finish(err error, header, trailer metadata.MD) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.finished {
		return
	}
	u.finished = true
	msg, err := u.one.Outcome(err)
	u.one = One{} // the message is not held once rendered
	u.Respond(msg, err, header, trailer)
}
