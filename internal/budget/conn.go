package budget

import (
	"context"
	"sync/atomic"
)

// A Conn is one client connection's share of the budgets it takes from:
// the bytes its requests hold. A connection that holds nothing may take
// more than the share, so that one request larger than it still goes.
type Conn struct {
	held    atomic.Int64
	waiting atomic.Int64 // Overhead for each of its takes that waits
}

// connKey is the context key of a connection's Conn.
type connKey struct{}

// WithConn returns ctx, the context of a new connection (an http.Server's
// ConnContext), with a Conn of its own: the requests on the connection
// share it.
func WithConn(ctx context.Context) context.Context {
	return context.WithValue(ctx, connKey{}, new(Conn))
}

// connFrom is the Conn of the connection whose request ctx is, or nil.
func connFrom(ctx context.Context) *Conn {
	c, _ := ctx.Value(connKey{}).(*Conn)
	return c
}

// Held is how many bytes the requests on c hold.
func (c *Conn) Held() int64 { return c.held.Load() }

// take takes n bytes if c holds nothing or has them within limit.
func (c *Conn) take(n, limit int64) bool {
	for {
		h := c.held.Load()
		if h > 0 && h+n > limit {
			return false
		}
		if c.held.CompareAndSwap(h, h+n) {
			return true
		}
	}
}

// give gives n bytes back to c; a nil c has none.
func (c *Conn) give(n int64) {
	if c != nil {
		c.held.Add(-n)
	}
}

// wait counts n more bytes waiting on c if c has none waiting or they
// stay within limit, and reports whether it did; a nil c always does.
func (c *Conn) wait(n, limit int64) bool {
	if c == nil {
		return true
	}
	for {
		w := c.waiting.Load()
		if w > 0 && w+n > limit {
			return false
		}
		if c.waiting.CompareAndSwap(w, w+n) {
			return true
		}
	}
}

// waited counts n bytes no longer waiting on c.
func (c *Conn) waited(n int64) {
	if c != nil {
		c.waiting.Add(-n)
	}
}
