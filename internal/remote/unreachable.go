package remote

import (
	"errors"
	"strings"

	"github.com/protorest/protorest/internal/httperr"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ErrUnreachable is matched (errors.Is) by the error of a call that did
// not reach its backend; see Unreachable.
var ErrUnreachable = errors.New("protorest: backend unreachable")

// unreachable is the status a client gets for a call that did not reach
// the backend: the cause names addresses that are the operator's
// business, not the client's.
var unreachable = status.New(codes.Unavailable, "upstream unavailable")

// unreachableError is a call that did not reach its backend. Its status
// (GRPCStatus) is UNAVAILABLE "upstream unavailable"; its text (Error)
// adds grpc-go's, for the log; it unwraps to grpc-go's error.
type unreachableError struct{ cause error }

func (e *unreachableError) Error() string {
	return unreachable.Message() + ": " + status.Convert(e.cause).Message()
}
func (e *unreachableError) GRPCStatus() *status.Status { return unreachable }
func (e *unreachableError) Unwrap() error              { return e.cause }
func (e *unreachableError) Is(target error) bool       { return target == ErrUnreachable }

// Unreachable returns err, the error of a call to a backend, as an error
// matching ErrUnreachable when grpc-go made it because it could not reach
// the backend rather than the backend answering it: an UNAVAILABLE (or a
// wait-for-ready call's DEADLINE_EXCEEDED after a balancer error) of a
// call that opened no stream (opened is false: grpc-go found no
// connection, its resolver or balancer failed), or of a stream whose
// connection broke, in grpc-go's words for that. Any other error, an
// UNAVAILABLE the backend sent among them, is returned as it is, and so
// is a Busy one (httperr.IsBusy: a pool with no stream to spare).
func Unreachable(err error, opened bool) error {
	// grpc-go's errors carry their status themselves; anything else (nil,
	// io.EOF) costs no conversion.
	gs, ok := err.(interface{ GRPCStatus() *status.Status })
	if !ok {
		return err
	}
	st := gs.GRPCStatus()
	msg := st.Message()
	switch st.Code() {
	case codes.Unavailable:
		if httperr.IsBusy(err) {
			return err // no stream to spare (connpool): the client may retry
		}
		if !opened || connectionLost(msg) {
			return &unreachableError{err}
		}
	case codes.DeadlineExceeded:
		if !opened && strings.HasPrefix(msg, "latest balancer error: ") {
			return &unreachableError{err}
		}
	}
	return err
}

// connectionLostPrefixes start grpc-go's messages for a connection that
// broke or closed under a call (internal/transport: a ConnectionError's
// text, or its description alone, as rpc_util.go's toRPCErr gives it;
// http2Client.Close, errStreamDrain, statusGoAway; clientconn.go:
// errConnDrain, errConnClosing, errConnIdling).
// A backend that sends one of them (a proxy relaying its own dial error)
// is taken at its word: its addresses stay hidden too.
var connectionLostPrefixes = []string{
	"connection error: desc = ",
	"closing transport due to: ",
	"transport is closing",
	"transport: ",
	"error reading from server: ",
	"error reading server preface: ",
	"initial http2 frame from server is not a settings frame",
	"closing connection since the server is not reading",
	"keepalive ping failed to receive ACK within timeout",
	"no active streams left to process while draining",
	"received goaway ",
	"the connection is draining",
	"the stream is rejected because server is draining the connection",
	"grpc: the connection is ",
}

func connectionLost(msg string) bool {
	for _, p := range connectionLostPrefixes {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
