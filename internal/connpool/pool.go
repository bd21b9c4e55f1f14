// Package connpool spreads a backend's calls over several client
// connections to it, so that a backend's limit on the streams of one
// HTTP/2 connection (its SETTINGS_MAX_CONCURRENT_STREAMS) does not cap the
// gateway's calls at that number, and refuses a call at once, rather than
// leaving it queued in grpc-go, when every connection is at that limit.
//
// The connections are grpc.ClientConns of their own: grpc-go's balancers
// key their subchannels by address (resolver.EndpointMap), so a resolver
// that lists one address several times still gets one connection.
package connpool

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"

	"github.com/protorest/protorest/internal/httperr"
)

// A Pool is a grpc.ClientConnInterface over several connections to one
// backend. Each call goes to the first connection with fewer calls in
// flight than the backend's limit of streams (with no limit, to the one
// with the fewest), skipping those in TRANSIENT_FAILURE while any other
// is not: calls share as few connections as they can, whose writes
// grpc-go then batches (docs/benchmarks.md), and a connection that no
// call needs stays idle, as grpc-go leaves a new connection until its
// first call.
type Pool struct {
	members    []member
	maxStreams int64 // per connection; 0 is no limit
	stop       context.CancelFunc
	watching   sync.WaitGroup
}

// member is one connection and its count of calls in flight, padded to a
// cache line of its own: every call writes a count.
type member struct {
	cc       *grpc.ClientConn
	inflight atomic.Int64
	failing  atomic.Bool // in TRANSIENT_FAILURE
	_        [64 - 8 - 8 - 4]byte
}

// ErrBusy is the error of a call that found every connection at its
// limit of streams: 503 UNAVAILABLE, with Retry-After.
var ErrBusy = httperr.Busy("the upstream is busy: every connection to it is at its limit of concurrent streams")

// New returns a pool over conns, which it then owns (Close closes them).
// maxStreams is the backend's limit of concurrent streams on one
// connection: a call that finds every connection at it fails at once
// with ErrBusy. 0 sets none: such a call waits in grpc-go for a stream to
// end.
func New(conns []*grpc.ClientConn, maxStreams int) *Pool {
	ctx, stop := context.WithCancel(context.Background())
	p := &Pool{members: make([]member, len(conns)), maxStreams: int64(max(maxStreams, 0)), stop: stop}
	for i, cc := range conns {
		m := &p.members[i]
		m.cc = cc
		p.watching.Add(1)
		go func() {
			defer p.watching.Done()
			m.watch(ctx)
		}()
	}
	return p
}

// watch keeps m.failing up to date until ctx ends.
func (m *member) watch(ctx context.Context) {
	for {
		state := m.cc.GetState()
		m.failing.Store(state == connectivity.TransientFailure)
		if !m.cc.WaitForStateChange(ctx, state) {
			return
		}
	}
}

// Conns returns the pool's connections, in order: the first is the one a
// call goes to when none is in flight.
func (p *Pool) Conns() []*grpc.ClientConn {
	conns := make([]*grpc.ClientConn, len(p.members))
	for i := range p.members {
		conns[i] = p.members[i].cc
	}
	return conns
}

// Close closes the connections, and returns their errors joined.
func (p *Pool) Close() error {
	p.stop()
	p.watching.Wait()
	var errs []error
	for i := range p.members {
		errs = append(errs, p.members[i].cc.Close())
	}
	return errors.Join(errs...)
}

// Invoke makes a unary call on the connection the Pool picks.
func (p *Pool) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	m := p.pick()
	if m == nil {
		return ErrBusy
	}
	defer m.inflight.Add(-1)
	return m.cc.Invoke(ctx, method, args, reply, opts...)
}

// NewStream opens a stream on the connection the Pool picks. The stream
// counts as in flight until it ends: RecvMsg returns an error (or, for a
// method that does not stream responses, its message), or ctx is done.
func (p *Pool) NewStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	m := p.pick()
	if m == nil {
		return nil, ErrBusy
	}
	cs, err := m.cc.NewStream(ctx, desc, method, opts...)
	if err != nil {
		m.inflight.Add(-1)
		return nil, err
	}
	s := &stream{ClientStream: cs, m: m, oneReply: !desc.ServerStreams}
	s.stopWatch = context.AfterFunc(ctx, s.end)
	return s, nil
}

// pick returns the member a call goes to, its count of calls in flight
// already raised, or nil when every connection is at maxStreams.
func (p *Pool) pick() *member {
	if p.maxStreams == 0 {
		m := p.least()
		m.inflight.Add(1)
		return m
	}
	// The failing connections only when every connection is failing.
	failing := true
	for i := range p.members {
		if !p.members[i].failing.Load() {
			failing = false
			break
		}
	}
	for i := range p.members {
		m := &p.members[i]
		if !failing && m.failing.Load() {
			continue
		}
		// A concurrent pick may take the last stream first: then this
		// one gives its count back and tries the next connection.
		if m.inflight.Add(1) <= p.maxStreams {
			return m
		}
		m.inflight.Add(-1)
	}
	return nil
}

// least is the member with the fewest calls in flight, the first of
// them, among those not failing if any is not.
func (p *Pool) least() *member {
	var best *member
	var bestN int64
	bestFailing := true
	for i := range p.members {
		m := &p.members[i]
		n, failing := m.inflight.Load(), m.failing.Load()
		if best == nil || (bestFailing && !failing) || (failing == bestFailing && n < bestN) {
			best, bestN, bestFailing = m, n, failing
		}
	}
	return best
}

// stream is a stream of the pool's, which gives its member's count back
// once when it ends.
type stream struct {
	grpc.ClientStream
	m         *member
	oneReply  bool // the method answers one message: RecvMsg's nil ends it
	ended     atomic.Bool
	stopWatch func() bool
}

func (s *stream) RecvMsg(msg any) error {
	err := s.ClientStream.RecvMsg(msg)
	if err != nil || s.oneReply {
		s.end()
		s.stopWatch()
	}
	return err
}

// end gives the count back, the first time it is called: from RecvMsg,
// or once the stream's context is done.
func (s *stream) end() {
	if s.ended.CompareAndSwap(false, true) {
		s.m.inflight.Add(-1)
	}
}

// Dial returns a pool of n client connections to target (at least one),
// each made by grpc.NewClient(target, opts...); see New for maxStreams.
// On an error, the connections made so far are closed.
func Dial(target string, n, maxStreams int, opts ...grpc.DialOption) (*Pool, error) {
	conns := make([]*grpc.ClientConn, 0, max(n, 1))
	for range cap(conns) {
		cc, err := grpc.NewClient(target, opts...)
		if err != nil {
			for _, c := range conns {
				c.Close()
			}
			return nil, err
		}
		conns = append(conns, cc)
	}
	return New(conns, maxStreams), nil
}
