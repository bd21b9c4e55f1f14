package protocols

import (
	"sync"
	"sync/atomic"

	"github.com/protorest/protorest/internal/exchange"
)

// A Table is the canonical endpoints of a gateway's methods by path
// ("/pkg.Service/Method"). Replace swaps them all or nothing, and safely
// while requests are served: Lookup reads a map that never changes. The
// zero Table is empty and ready.
type Table struct {
	mu     sync.Mutex
	served atomic.Pointer[map[string]*exchange.Endpoint]
}

// Lookup returns the endpoint at path, or nil.
func (t *Table) Lookup(path string) *exchange.Endpoint {
	m := t.served.Load()
	if m == nil {
		return nil
	}
	return (*m)[path]
}

// Replace drops the endpoints in drop and adds those in add.
func (t *Table) Replace(drop, add []*exchange.Endpoint) {
	t.mu.Lock()
	defer t.mu.Unlock()
	next := map[string]*exchange.Endpoint{}
	if m := t.served.Load(); m != nil {
		for k, v := range *m {
			next[k] = v
		}
	}
	for _, ep := range drop {
		if next[ep.Pattern] == ep {
			delete(next, ep.Pattern)
		}
	}
	for _, ep := range add {
		next[ep.Pattern] = ep
	}
	t.served.Store(&next)
}
