package main

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Connection limits of serve.
//
// --max-connections bounds the connections serve holds open, so that a
// flood of connections cannot use up the process's file descriptors (an
// accept that fails with EMFILE leaves the listener unable to take even a
// legitimate client until the flood leaves). What happens to a connection
// beyond the limit is a choice between two designs, and this listener takes
// a third that keeps the good half of each:
//
//   - Refusing it (accept, then close at once) is clean but turns a flood
//     of idle connections into a refusal of every legitimate client until
//     the idle ones time out.
//   - Leaving it in the kernel's backlog (not calling Accept until a slot
//     frees) refuses no one, but the backlog is first come, first served:
//     a legitimate client waits behind every queued flood connection, each
//     of which holds its slot until --idle-timeout, so 200 idle
//     connections over a limit of 50 keep it waiting four idle timeouts.
//
// So, as nginx does when it runs out of connections (it closes the
// keep-alive and still-silent connections, the oldest first), a new
// connection over the limit takes the slot of the oldest connection that
// serves no one: idle between keep-alive requests (HTTP/1.1, or HTTP/2 with
// no stream open), else one accepted and silent (not a byte) for a second. Closing such a
// connection is what --idle-timeout does anyway, and HTTP clients retry a
// request on a kept-alive connection that the server closed. Only when
// every connection is busy (a request in flight, a request being read, a
// WebSocket) does a new connection wait, in the kernel's backlog: Accept
// is not called, so it never fails with EMFILE, and served connections
// go on. A flood of idle connections therefore churns through its own
// slots while a legitimate client is served at once.
//
// A connection's slot is released exactly once, by the first Close of the
// connection: net/http's, a hijacker's (WebSocket), the eviction's, or the
// crypto/tls connection over it.

// maxConnectionsCap and fdHeadroom make the default of --max-connections:
// the open-file limit less fdHeadroom descriptors (the upstream
// connections, files, the listener, the runtime), at most
// maxConnectionsCap.
const (
	maxConnectionsCap = 10000
	fdHeadroom        = 256
)

// maxConnectionsFor is the default for an open-file limit: the limit less
// fdHeadroom (but at least half of a small limit), at most
// maxConnectionsCap.
func maxConnectionsFor(limit uint64) int {
	if limit >= maxConnectionsCap+fdHeadroom {
		return maxConnectionsCap
	}
	n := int(limit) - fdHeadroom
	if n < int(limit)/2 {
		n = int(limit) / 2
	}
	return max(n, 1)
}

// silentGrace is how long a new connection may stay silent before a new
// connection over the limit may take its place: a client sends its first
// byte (a request, a TLS hello) a round trip after connecting, so only a
// connection that waits on purpose is evicted, never one of a legitimate
// burst that the server has not read yet.
const silentGrace = time.Second

// A limitListener holds at most max accepted connections open; see above.
// Its ConnState must be the http.Server's ConnState, which tells it which
// connections are idle.
type limitListener struct {
	net.Listener
	max   int
	grace time.Duration // silentGrace, but for tests

	mu     sync.Mutex
	cond   sync.Cond // signalled when a slot frees, a connection becomes evictable, or the listener closes
	open   int       // connections returned by Accept and not yet closed
	closed bool
	// The evictable connections, oldest first: idle between requests,
	// and silent since they were accepted.
	idle, silent connList
}

// A connList is a doubly linked list through the connections.
type connList struct{ head, tail *limitedConn }

// newLimitListener limits l to max connections; max <= 0 is no limit.
func newLimitListener(l net.Listener, max int) *limitListener {
	ll := &limitListener{Listener: l, max: max, grace: silentGrace}
	ll.cond.L = &ll.mu
	return ll
}

// evictable is the connection a new one over the limit may replace: the
// longest idle, else the longest silent if silent for the grace; nil if
// none. Called with mu held.
func (l *limitListener) evictable() *limitedConn {
	if l.idle.head != nil {
		return l.idle.head
	}
	if s := l.silent.head; s != nil && time.Since(s.since) >= l.grace {
		return s
	}
	return nil
}

// wait waits for a signal, or for the oldest silent connection to become
// evictable. Called with mu held.
func (l *limitListener) wait() {
	var t *time.Timer
	if s := l.silent.head; s != nil {
		t = time.AfterFunc(l.grace-time.Since(s.since), func() {
			l.mu.Lock()
			l.cond.Broadcast()
			l.mu.Unlock()
		})
	}
	l.cond.Wait()
	if t != nil {
		t.Stop()
	}
}

// Accept waits, without accepting, while every slot is taken by a busy
// connection; then accepts, and if the limit is reached closes the oldest
// evictable connection to make room.
func (l *limitListener) Accept() (net.Conn, error) {
	if l.max <= 0 {
		return l.Listener.Accept()
	}
	l.mu.Lock()
	for l.open >= l.max && l.evictable() == nil && !l.closed {
		l.wait() // the new connections wait in the kernel's backlog
	}
	l.mu.Unlock()
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.open >= l.max {
		if l.closed {
			c.Close()
			return nil, net.ErrClosed
		}
		if victim := l.evictable(); victim != nil {
			l.unlink(victim)
			l.mu.Unlock()
			victim.Close() // releases its slot
			l.mu.Lock()
			continue
		}
		// Between the wait and the accept, the evictable connections
		// became busy: hold this one, unserved, until a slot frees.
		l.wait()
	}
	l.open++
	lc := &limitedConn{Conn: c, l: l, since: time.Now()}
	l.push(&l.silent, lc) // until it sends a byte
	return lc, nil
}

// Close closes the listener and wakes an Accept waiting for a slot.
func (l *limitListener) Close() error {
	l.mu.Lock()
	l.closed = true
	l.cond.Broadcast()
	l.mu.Unlock()
	return l.Listener.Close()
}

// Open is the number of connections held open.
func (l *limitListener) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// ConnState is http.Server.ConnState: an idle connection becomes
// evictable, a busy or hijacked one is not.
func (l *limitListener) ConnState(c net.Conn, state http.ConnState) {
	lc := unwrapLimited(c)
	if lc == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case lc.released:
	case state == http.StateIdle:
		if lc.list != &l.idle {
			l.unlink(lc)
			l.push(&l.idle, lc)
			l.cond.Signal()
		}
	case state == http.StateNew:
		// On the silent list from accept until its first byte.
	default: // active, hijacked, closed
		l.unlink(lc)
	}
}

// unwrapLimited finds the limitedConn under c (a *tls.Conn over it, say).
func unwrapLimited(c net.Conn) *limitedConn {
	for c != nil {
		if lc, ok := c.(*limitedConn); ok {
			return lc
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return nil
		}
		c = u.NetConn()
	}
	return nil
}

// push links lc as the newest of list. Called with mu held, lc on no
// list.
func (l *limitListener) push(list *connList, lc *limitedConn) {
	lc.prev, lc.next = list.tail, nil
	if list.tail != nil {
		list.tail.next = lc
	} else {
		list.head = lc
	}
	list.tail = lc
	lc.list = list
}

// unlink takes lc off its list, if it is on one. Called with mu held.
func (l *limitListener) unlink(lc *limitedConn) {
	list := lc.list
	if list == nil {
		return
	}
	if lc.prev != nil {
		lc.prev.next = lc.next
	} else {
		list.head = lc.next
	}
	if lc.next != nil {
		lc.next.prev = lc.prev
	} else {
		list.tail = lc.prev
	}
	lc.prev, lc.next, lc.list = nil, nil, nil
}

// release gives back lc's slot, the first time it is called for lc.
func (l *limitListener) release(lc *limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if lc.released {
		return
	}
	l.unlink(lc)
	lc.released = true
	l.open--
	l.cond.Signal()
}

// A limitedConn holds a slot of its limitListener until its first Close.
type limitedConn struct {
	net.Conn
	l       *limitListener
	since   time.Time   // accepted
	readAny atomic.Bool // a byte was read: no longer silent
	// Guarded by l.mu: released (its slot given back), and the
	// evictable list it is on.
	released   bool
	list       *connList
	prev, next *limitedConn
}

// Read notes the first byte: a connection that has sent one is not evicted
// until it is idle between requests.
func (c *limitedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.readAny.CompareAndSwap(false, true) {
		c.l.mu.Lock()
		if c.list == &c.l.silent {
			c.l.unlink(c)
		}
		c.l.mu.Unlock()
	}
	return n, err
}

// Close closes the connection; the first call releases its slot.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.l.release(c)
	return err
}
