// Package classlimit caps the calls of each class a gateway runs at once
// (unary calls; server, client and bidirectional streams; WebSockets;
// proxied gRPC calls), so that long-lived calls of one class cannot take
// every stream to the upstream that the others need. A call over its
// class's cap is refused at once, never queued: 503 UNAVAILABLE with
// Retry-After.
package classlimit

import (
	"sync/atomic"

	"github.com/protorest/protorest/internal/httperr"
)

// A Class is a kind of call, each with its own cap.
type Class uint8

// The classes.
const (
	Unary        Class = iota
	ServerStream       // over HTTP
	ClientStream       // over HTTP
	BidiStream         // over HTTP
	WebSocket          // a streaming method's, whatever it streams
	GRPC               // a gRPC call proxied as it is (protorest serve's pass-through)
	numClasses
)

// names are the classes as their refusals name them.
var names = [numClasses]string{"unary calls", "server streams", "client streams", "bidirectional streams", "WebSockets", "gRPC calls"}

// Of is the class of a call of a method that streams as given, over a
// WebSocket or plain HTTP.
func Of(clientStreams, serverStreams, websocket bool) Class {
	switch {
	case websocket:
		return WebSocket
	case clientStreams && serverStreams:
		return BidiStream
	case clientStreams:
		return ClientStream
	case serverStreams:
		return ServerStream
	}
	return Unary
}

// Caps are the most calls of each class at once, by Class; 0 or less is
// no cap.
type Caps [numClasses]int

// A Limiter counts the calls of each class in flight against its cap. A
// nil Limiter caps nothing.
type Limiter struct {
	classes [numClasses]class
}

// class is one class's cap and count, on a cache line of its own: every
// call of the class writes its count.
type class struct {
	open atomic.Int64
	cap  int64 // 0: none
	busy error // the refusal
	_    [64 - 8 - 8 - 16]byte
}

// New returns a limiter of caps, or nil when caps sets none.
func New(caps Caps) *Limiter {
	if caps == (Caps{}) {
		return nil
	}
	l := new(Limiter)
	for i, n := range caps {
		l.classes[i].cap = int64(max(n, 0))
		l.classes[i].busy = httperr.Busy("too many " + names[i] + " in flight: try again")
	}
	return l
}

// Acquire counts a call of class c in flight, or returns its refusal (a
// Busy error: 503 UNAVAILABLE, Retry-After) when c is at its cap. Each
// nil return must be followed by Release once the call has ended.
func (l *Limiter) Acquire(c Class) error {
	if l == nil {
		return nil
	}
	k := &l.classes[c]
	if k.cap == 0 {
		return nil
	}
	if k.open.Add(1) > k.cap {
		k.open.Add(-1)
		return k.busy
	}
	return nil
}

// Release ends a call of class c that Acquire let in.
func (l *Limiter) Release(c Class) {
	if l == nil {
		return
	}
	if k := &l.classes[c]; k.cap != 0 {
		k.open.Add(-1)
	}
}

// Open returns the calls of class c in flight (of those counted: none
// for a class without a cap).
func (l *Limiter) Open(c Class) int {
	if l == nil {
		return 0
	}
	return int(l.classes[c].open.Load())
}

// A Slot is one call's place within its class's cap, from Take. The zero
// Slot holds none.
type Slot struct {
	l *Limiter
	c Class
}

// Take is Acquire, as a Slot to give back with its Release.
func (l *Limiter) Take(c Class) (Slot, error) {
	if err := l.Acquire(c); err != nil {
		return Slot{}, err
	}
	return Slot{l: l, c: c}, nil
}

// Release gives s's place back; again, or on the zero Slot, it does
// nothing.
func (s *Slot) Release() {
	if s.l != nil {
		s.l.Release(s.c)
		s.l = nil
	}
}
