// Package plancache keeps the plans the JSON codecs (internal/jsondec,
// internal/jsonenc) build for each message type, up to a bound:
// descriptors that come and go (a remote backend's, reloaded as it
// changes) must not pile up. Past the bound the cache starts over, and
// plans are built again as they are used.
package plancache

import (
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Cache holds plans of type P by message descriptor. It is safe for
// concurrent use; the zero value is empty.
type Cache[P any] struct {
	m     sync.Map // protoreflect.MessageDescriptor → P
	count atomic.Int64
}

// Load returns the plan kept for md.
func (c *Cache[P]) Load(md protoreflect.MessageDescriptor) (P, bool) {
	v, ok := c.m.Load(md)
	if !ok {
		var zero P
		return zero, false
	}
	return v.(P), true
}

// Add keeps plans built together (a type and those it reaches); where
// another goroutine kept a plan for the same descriptor first, that one
// stays. If the cache would then hold more than max plans, it is emptied
// first.
func (c *Cache[P]) Add(built map[protoreflect.MessageDescriptor]P, max int64) {
	if c.count.Add(int64(len(built))) > max {
		c.m.Clear()
		c.count.Store(int64(len(built)))
	}
	for md, p := range built {
		c.m.LoadOrStore(md, p)
	}
}

// Len returns the number of plans kept.
func (c *Cache[P]) Len() int {
	n := 0
	c.m.Range(func(_, _ any) bool { n++; return true })
	return n
}

// Count returns the number of plans added since the cache last started
// over, which bounds Len.
func (c *Cache[P]) Count() int64 { return c.count.Load() }
