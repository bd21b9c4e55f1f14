package remote

import (
	"strconv"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/render"
)

// A RecvLimit is the largest message the calls to a backend take from it:
// grpc-go refuses a longer one from the length in its frame header,
// before reading it (and a compressed one once it decompresses past it),
// so the gateway never holds more of a backend's message. The refusal is
// a RESOURCE_EXHAUSTED status made on the gateway's side, which Outcome
// turns into render.TooLarge: the response is too large, as an encoded
// body past the response limit is, not a quota the client should retry.
//
// It limits the metadata of a response too (WithMaxHeader, CheckHeader).
type RecvLimit struct {
	max       int               // bytes; 0: the connection's limit
	opts      []grpc.CallOption // grpc.MaxCallRecvMsgSize(max), or none
	maxHeader int               // bytes of response metadata; 0: none
}

// NewRecvLimit returns the limit of n bytes, set on each call with
// grpc.MaxCallRecvMsgSize (which takes the place of the connection's
// WithDefaultCallOptions limit); n <= 0 sets none, leaving the
// connection's (grpc-go's default is 4 MiB).
func NewRecvLimit(n int) RecvLimit {
	if n <= 0 {
		return RecvLimit{}
	}
	// Built once: the option and the slice cost nothing per call (grpc-go
	// allocates 8 bytes in applying it).
	return RecvLimit{max: n, opts: []grpc.CallOption{grpc.MaxCallRecvMsgSize(n)}}
}

// option is the call option of the limit, or one that does nothing.
func (l RecvLimit) option() grpc.CallOption {
	if len(l.opts) == 0 {
		return grpc.EmptyCallOption{}
	}
	return l.opts[0]
}

// Outcome is err, the error of a call whose response header metadata is
// header, with grpc-go's refusal of a message over the receive limit
// replaced by render.TooLarge of that limit. A backend's own
// RESOURCE_EXHAUSTED is left as it is, even one in grpc-go's words (its
// own server refusing a request of the gateway's as too large, with a
// limit that may be the same): that one comes before any response
// header, in a trailers-only response (header is nil), while grpc-go
// reads a message, and so can refuse one, only after the header. The
// limit quoted must also be this one, when it is set.
func (l RecvLimit) Outcome(err error, header metadata.MD) error {
	if err == nil || header == nil {
		return err
	}
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.ResourceExhausted {
		return err
	}
	if limit, ok := refusedOver(st.Message()); ok && (l.max == 0 || limit == l.max) {
		return render.TooLarge(limit)
	}
	return err
}

// refusedOver parses the messages of grpc-go's receive limit
// (rpc_util.go: recvMsg, decompress) and returns the limit they quote.
func refusedOver(msg string) (int, bool) {
	for _, prefix := range []string{
		"grpc: received message larger than max (",
		"grpc: message after decompression larger than max (",
	} {
		if rest, ok := strings.CutPrefix(msg, prefix); ok {
			size, limit, ok := strings.Cut(rest, " vs. ")
			if !ok || !isDigits(size) {
				return 0, false
			}
			limit, ok = strings.CutSuffix(limit, ")")
			return parseLimit(limit, ok)
		}
	}
	limit, ok := strings.CutPrefix(msg, "grpc: received message after decompression larger than max ")
	return parseLimit(limit, ok)
}

// parseLimit parses s, a positive decimal number, when ok.
func parseLimit(s string, ok bool) (int, bool) {
	if !ok || !isDigits(s) {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n > 0
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
