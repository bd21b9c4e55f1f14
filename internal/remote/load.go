package remote

import (
	"context"
	"slices"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/plan"
	"github.com/protorest/protorest/internal/wirescan"
)

// load loads rm's descriptors and swaps its routes and types for the new
// ones. Loads are serialised, so that each starts from the routes the
// last one left.
func (b *Backends) load(ctx context.Context, rm *Backend) error {
	b.loadMu.Lock()
	defer b.loadMu.Unlock()
	set, err := rm.load(ctx, rm.conn)
	if err != nil {
		return notLoadedError{err}
	}
	// Unchanged descriptors keep the routes and types they have: a reload
	// on an interval or a reconnect costs no new plans.
	sum := set.Fingerprint()
	b.mu.Lock()
	same := rm.entries != nil && sum == rm.fingerprint
	b.mu.Unlock()
	if same {
		return nil
	}
	var entries plan.Entries
	var names []string
	scans := wirescan.NewTypes(nil) // proto.Unmarshal's resolver, as codec.Proto's
	for _, sd := range set.Services {
		if err := plan.CheckSuccessStatus(b.Config, sd); err != nil {
			return err
		}
		names = append(names, string(sd.FullName()))
		methods := sd.Methods()
		for i := range methods.Len() {
			md := methods.Get(i)
			c := caller(rm.conn, rm.recv, md, scans)
			es, err := plan.Method(b.Config, md, c)
			if err != nil {
				return err
			}
			canonical, err := plan.Canonical(b.Config, md, c)
			if err != nil {
				return err
			}
			entries = append(append(entries, es...), canonical)
		}
	}
	b.mu.Lock()
	drop, dropServices := rm.entries, rm.services
	b.mu.Unlock()
	// The types go first, so that the new routes never render an Any of a
	// new type as unknown.
	types := dynamicpb.NewTypes(set.Files)
	b.setTypes(rm, types)
	if err := b.Replace(drop, entries, dropServices, names); err != nil {
		b.setTypes(rm, rm.types)
		return err
	}
	b.mu.Lock()
	rm.entries, rm.services, rm.descs, rm.types, rm.err, rm.fingerprint = entries, names, set.Services, types, nil, sum
	b.mu.Unlock()
	return nil
}

// caller calls md on the backend over conn, receiving messages within
// recv: a unary rule's requests go as wire bytes where its plan allows
// (scans compiles their types).
func caller(conn grpc.ClientConnInterface, recv RecvLimit, md protoreflect.MethodDescriptor, scans *wirescan.Types) plan.Caller {
	if md.IsStreamingClient() || md.IsStreamingServer() {
		inv := &StreamMethod{Conn: conn, Recv: recv, Desc: grpc.StreamDesc{
			ServerStreams: md.IsStreamingServer(),
			ClientStreams: md.IsStreamingClient(),
		}}
		return plan.Caller{Remote: true, Invoker: func(*bind.Request) exchange.Invoker { return inv }}
	}
	return plan.Caller{Remote: true, Invoker: func(req *bind.Request) exchange.Invoker {
		return &UnaryMethod{Conn: conn, Recv: recv, Wire: NewWirePlan(scans, req)}
	}}
}

// setTypes gives the resolver the types of every backend, with types for
// rm.
func (b *Backends) setTypes(rm *Backend, types *dynamicpb.Types) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var all []*dynamicpb.Types
	if !slices.Contains(b.list, rm) && types != nil {
		all = append(all, types)
	}
	for _, r := range b.list {
		t := r.types
		if r == rm {
			t = types
		}
		if t != nil {
			all = append(all, t)
		}
	}
	b.Types.SetRemote(all)
}
