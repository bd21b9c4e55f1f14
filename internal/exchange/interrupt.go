package exchange

import (
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/framing"
)

// Interruptible is a request stream whose read in progress can be cut
// short when the handler is about to return: the body may not be read
// after that. Only a read in progress is cut.
type Interruptible struct {
	r framing.Reader

	mu      sync.Mutex
	reading bool
	stopped bool
}

// NewInterruptible wraps r.
func NewInterruptible(r framing.Reader) *Interruptible { return &Interruptible{r: r} }

var errStopped = status.Error(codes.Canceled, "the call has ended")

func (b *Interruptible) Next() ([]byte, error) {
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return nil, errStopped
	}
	b.reading = true
	b.mu.Unlock()
	data, err := b.r.Next()
	b.mu.Lock()
	b.reading = false
	b.mu.Unlock()
	return data, err
}

// Cut stops reading and calls wait, which returns once the reader has:
// at once if no read is in progress, else after interrupt ends it.
func (b *Interruptible) Cut(interrupt func() (restore func()), wait func()) {
	b.mu.Lock()
	b.stopped = true
	reading := b.reading
	b.mu.Unlock()
	if reading {
		defer interrupt()()
	}
	wait()
}
