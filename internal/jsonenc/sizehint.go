package jsonenc

import (
	"slices"
	"sync/atomic"
)

// sizeHint remembers how long the JSON of one message type has been, so
// that Append can make room for it at once: appending into a buffer too
// small for it would otherwise grow it step by step, copying what was
// written each time (for a 130 KB answer, some twenty allocations and
// about five times its size allocated and copied). A pooled buffer that
// is large enough is left as it is.
//
// The hint is the length of a recent message of the type: it is updated
// when a message outgrows it, or is less than half of it, so that one
// large message does not make every later small one allocate as much;
// messages of about the same size do not write it at all, which keeps
// concurrent encoders of one type from contending for it.
type sizeHint struct {
	n atomic.Int64
}

// maxSizeHint bounds the room grow makes: past it a buffer grows as it
// is written, so that one very large message does not make every message
// of its type allocate as much before a smaller one lowers the hint.
const maxSizeHint = 1 << 20

// grow returns b with room for the hinted length after len(b).
func (h *sizeHint) grow(b []byte) []byte {
	if n := min(int(h.n.Load()), maxSizeHint); cap(b)-len(b) < n {
		return slices.Grow(b, n)
	}
	return b
}

// observe records the length n of a message just written.
func (h *sizeHint) observe(n int) {
	if old := int(h.n.Load()); n > old || n < old/2 {
		h.n.Store(int64(n))
	}
}
