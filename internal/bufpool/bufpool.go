// Package bufpool is the pool of byte buffers the request path shares:
// request bodies, encoded responses, remote requests transcoded to wire
// bytes.
package bufpool

import (
	"bytes"
	"sync"
)

var pool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooled is the capacity of the largest buffer the pool keeps.
const maxPooled = 1 << 20

// Get returns an empty buffer.
func Get() *bytes.Buffer { return pool.Get().(*bytes.Buffer) }

// Put returns buf to the pool unless it is nil or grew too large to
// keep.
func Put(buf *bytes.Buffer) {
	if buf == nil || buf.Cap() > maxPooled {
		return
	}
	buf.Reset()
	pool.Put(buf)
}

// KeepRoom grows buf, a pooled buffer that a slice of capacity n
// outgrew, so that the next use of it needs no growing. The slice itself
// is not taken over: it may be a message's own bytes (HttpBody, a
// backend's response), or still be written. A slice too large for the
// pool to keep is not worth the room.
func KeepRoom(buf *bytes.Buffer, n int) {
	if n > buf.Cap() && n <= maxPooled {
		buf.Grow(n)
	}
}
