package protorest

import (
	"context"
	"crypto/sha256"
	"errors"
	"slices"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/descsource"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/remote"
	"github.com/protorest/protorest/internal/route"
	"github.com/protorest/protorest/internal/wirescan"
)

// A RemoteOption configures RegisterRemote: where the backend's
// descriptors come from. The default is gRPC server reflection, for every
// service the backend lists.
type RemoteOption interface {
	applyRemote(*remoteConfig)
}

type remoteOptionFunc func(*remoteConfig)

func (f remoteOptionFunc) applyRemote(c *remoteConfig) { f(c) }

type remoteConfig struct {
	load    func(ctx context.Context, conn grpc.ClientConnInterface) (*descsource.Set, error)
	pending bool

	maxMessage    int // WithMaxBackendMessageBytes
	maxMessageSet bool
	maxHeader     int // WithMaxBackendHeaderBytes
}

// WithReflection reads the backend's descriptors with gRPC server
// reflection (grpc.reflection.v1, falling back to v1alpha): the named
// services, or with none every service it lists (except reflection and
// health). This is the default.
func WithReflection(services ...string) RemoteOption {
	return remoteOptionFunc(func(c *remoteConfig) {
		c.load = func(ctx context.Context, conn grpc.ClientConnInterface) (*descsource.Set, error) {
			return descsource.FromReflection(ctx, conn, services...)
		}
	})
}

// WithDescriptorSetFile reads the backend's descriptors from a serialized
// google.protobuf.FileDescriptorSet (buf build -o set.binpb, or protoc
// --descriptor_set_out --include_imports): the named services, or all.
func WithDescriptorSetFile(path string, services ...string) RemoteOption {
	return remoteOptionFunc(func(c *remoteConfig) {
		c.load = func(context.Context, grpc.ClientConnInterface) (*descsource.Set, error) {
			return descsource.FromDescriptorSetFile(path, services...)
		}
	})
}

// WithProtoFiles compiles the backend's .proto source files in-process:
// the named services, or all the services in files. Files and their
// imports resolve as protoc resolves them, relative to importPaths (the
// working directory when there are none); a file named relative to the
// working directory that lies under an import path works too. The
// well-known types and the google/api and google/rpc files resolve without
// an import path.
func WithProtoFiles(importPaths, files []string, services ...string) RemoteOption {
	return remoteOptionFunc(func(c *remoteConfig) {
		c.load = func(ctx context.Context, _ grpc.ClientConnInterface) (*descsource.Set, error) {
			return descsource.FromProtoFiles(ctx, importPaths, files, services...)
		}
	})
}

// WithRemoteFiles takes the backend's descriptors from files the caller
// already has: the named services, or all the services in files.
func WithRemoteFiles(files *protoregistry.Files, services ...string) RemoteOption {
	return remoteOptionFunc(func(c *remoteConfig) {
		c.load = func(context.Context, grpc.ClientConnInterface) (*descsource.Set, error) {
			return descsource.FromFiles(files, services...)
		}
	})
}

// WithMaxBackendMessageBytes limits each message the gateway receives
// from the backend (a unary response, each message of a stream) to n
// bytes of its protobuf encoding: grpc-go refuses a longer one from its
// length, before reading it, and the client gets what a response over
// WithMaxResponseBytes gets: 500 INTERNAL "response too large" (in-band
// in a stream that has started), not grpc-go's RESOURCE_EXHAUSTED, whose
// 429 would tell it to retry. A backend that answers RESOURCE_EXHAUSTED
// itself still gets 429.
//
// The limit is set on each call (grpc.MaxCallRecvMsgSize), so it takes
// the place of the connection's own (grpc.WithDefaultCallOptions). The
// default is WithMaxResponseBytes's n: a binary response is the
// backend's bytes, and JSON is most often larger than they are; a
// response whose body is smaller than its message (a response_body
// field, JSON of many zeros, fields the descriptors do not know) is
// refused all the same past n, and needs a larger limit here. n <= 0
// sets none, leaving the connection's limit (grpc-go's default is
// 4 MiB), as a WithMaxResponseBytes of no limit does.
func WithMaxBackendMessageBytes(n int) RemoteOption {
	return remoteOptionFunc(func(c *remoteConfig) { c.maxMessage, c.maxMessageSet = max(n, 0), true })
}

// WithMaxBackendHeaderBytes limits the metadata of the backend's response,
// which the gateway writes as response headers (Grpc-Metadata-*,
// Grpc-Trailer-*), to n bytes as HTTP/2 counts a header list (each key
// and value, and 32 bytes a field): a unary call's header and trailer
// metadata together, a stream's header as it starts and its trailer as
// it ends. Past it, the client gets 502 INTERNAL and none of the
// metadata (in-band, for a stream's trailer). The default is 64 KiB;
// n <= 0 sets none. grpc-go's own limit on the header lists it receives
// (grpc.WithMaxHeaderListSize on conn, 16 MiB by default) still applies.
func WithMaxBackendHeaderBytes(n int) RemoteOption {
	return remoteOptionFunc(func(c *remoteConfig) { c.maxHeader = max(n, 0) })
}

// RegisterRemote routes the annotated methods of a gRPC backend reached
// over conn (a *grpc.ClientConn to host:port, dns:///name, unix:///path…).
// Requests are transcoded to protobuf and sent with conn.Invoke; the
// request's metadata (see DefaultHeaderMatcher) and deadline go with the
// call, and the backend's header and trailer metadata come back as
// Grpc-Metadata-* headers and Grpc-Trailer-* trailers; each message of
// the backend's is limited in size (WithMaxBackendMessageBytes). The
// unary server interceptors given to NewGateway do not run for remote
// methods: put client interceptors on conn instead.
//
// A unary request whose body is binary (application/proto,
// application/protobuf, application/x-protobuf) for a rule whose body is
// "*" goes to the backend as the client sent it, once a scan of the wire
// format has found that decoding it would succeed; path variables are
// appended to it when that sets them as decoding would. A body that would
// not decode gets the same 400 INVALID_ARGUMENT as before, and the backend
// is not called. A JSON body for such a rule is transcoded straight to the
// wire form (no message is built) when the JSON decoder can; otherwise it
// is decoded as before. Such a request, and every remote response, reaches
// conn's client interceptors (and stats handlers) as a
// google.protobuf.Empty whose unknown fields are the message's bytes; a
// request's bytes are the gateway's pooled memory, valid only until the
// call returns: an interceptor that keeps the message must clone it.
//
// Unlike RegisterService it returns its errors: descriptors that cannot
// be loaded, rules that cannot be served, or routes that conflict. It
// registers all of the services or none. Reload reads the descriptors
// again and swaps the backend's routes.
//
// A call that does not reach the backend (grpc-go finds no connection to
// it, cannot resolve its address, or loses the connection mid-call) gets
// 503 UNAVAILABLE "upstream unavailable": grpc-go's message names
// addresses, which are no business of the client's. The error the error
// handler and CallInfo.Err are given matches ErrBackendUnreachable and
// has grpc-go's message in its text, for the log. An UNAVAILABLE the
// backend sends itself is passed on as it is.
//
// With WithPending, a backend whose descriptors cannot be loaded yet (it
// is down, or starting) stays registered: RegisterRemote returns an error
// that wraps ErrNotLoaded, requests that no route matches get 503
// UNAVAILABLE naming the cause, and a later Reload picks the routes up.
func (g *Gateway) RegisterRemote(ctx context.Context, conn grpc.ClientConnInterface, opts ...RemoteOption) error {
	cfg := remoteConfig{maxHeader: remote.DefaultMaxHeaderBytes}
	WithReflection().applyRemote(&cfg)
	for _, o := range opts {
		o.applyRemote(&cfg)
	}
	maxMessage := g.env.Render.MaxBody
	if cfg.maxMessageSet {
		maxMessage = cfg.maxMessage
	}
	rm := &backend{conn: conn, load: cfg.load, recv: remote.NewRecvLimit(maxMessage).WithMaxHeader(cfg.maxHeader)}
	err := g.loadRemote(ctx, rm)
	if err != nil && !(cfg.pending && errors.Is(err, ErrNotLoaded)) {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil {
		rm.err = err
	}
	g.remotes = append(g.remotes, rm)
	return err
}

// WithPending keeps a backend registered when its descriptors cannot be
// loaded yet; see RegisterRemote. Rules that cannot be served still fail.
func WithPending() RemoteOption {
	return remoteOptionFunc(func(c *remoteConfig) { c.pending = true })
}

// ErrNotLoaded is wrapped by the errors of RegisterRemote and Reload when
// a backend's descriptors could not be loaded (as opposed to loaded
// descriptors whose rules cannot be served).
var ErrNotLoaded = errors.New("protorest: backend descriptors not loaded")

// ErrBackendUnreachable is matched (errors.Is) by the error of a remote
// call that did not reach its backend: its status is UNAVAILABLE
// "upstream unavailable", its text (Error) adds grpc-go's, and it
// unwraps to grpc-go's error.
var ErrBackendUnreachable = remote.ErrUnreachable

// notLoadedError is a failure to load descriptors; the cause names where
// they came from ("reflection: …", "descriptor set x.binpb: …").
type notLoadedError struct{ err error }

func (e notLoadedError) Error() string        { return "protorest: " + e.err.Error() }
func (e notLoadedError) Unwrap() error        { return e.err }
func (e notLoadedError) Is(target error) bool { return target == ErrNotLoaded }

// backend is one RegisterRemote: how to load its descriptors, and what the
// last load registered. Its fields are guarded by Gateway.mu.
type backend struct {
	conn     grpc.ClientConnInterface
	recv     remote.RecvLimit
	load     func(context.Context, grpc.ClientConnInterface) (*descsource.Set, error)
	entries  []*route.Entry[*exchange.Endpoint]
	services []string
	types    *dynamicpb.Types
	err      error // why nothing is loaded yet, for a pending backend

	fingerprint [sha256.Size]byte // of the descriptors loaded
}

// loadRemote loads rm's descriptors and swaps its routes and types for
// the new ones. Loads are serialised, so that each starts from the routes
// the last one left.
func (g *Gateway) loadRemote(ctx context.Context, rm *backend) error {
	g.loadMu.Lock()
	defer g.loadMu.Unlock()
	set, err := rm.load(ctx, rm.conn)
	if err != nil {
		return notLoadedError{err}
	}
	// Unchanged descriptors keep the routes and types they have: a reload
	// on an interval or a reconnect costs no new plans.
	sum := set.Fingerprint()
	g.mu.Lock()
	same := rm.entries != nil && sum == rm.fingerprint
	g.mu.Unlock()
	if same {
		return nil
	}
	var entries []*route.Entry[*exchange.Endpoint]
	var names []string
	scans := wirescan.NewTypes(nil) // proto.Unmarshal's resolver, as codec.Proto's
	for _, sd := range set.Services {
		if err := g.checkSuccessStatus(sd); err != nil {
			return err
		}
		names = append(names, string(sd.FullName()))
		methods := sd.Methods()
		for i := range methods.Len() {
			es, err := g.methodEntries(methods.Get(i), remoteCaller(rm.conn, rm.recv, methods.Get(i), scans))
			if err != nil {
				return err
			}
			entries = append(entries, es...)
		}
	}
	g.mu.Lock()
	drop, dropServices := rm.entries, rm.services
	g.mu.Unlock()
	// The types go first, so that the new routes never render an Any of a
	// new type as unknown.
	types := dynamicpb.NewTypes(set.Files)
	g.setRemoteTypes(rm, types)
	if err := g.replace(drop, entries, dropServices, names); err != nil {
		g.setRemoteTypes(rm, rm.types)
		return err
	}
	g.mu.Lock()
	rm.entries, rm.services, rm.types, rm.err, rm.fingerprint = entries, names, types, nil, sum
	g.mu.Unlock()
	return nil
}

// remoteCaller calls md on the backend over conn, receiving messages
// within recv: a unary rule's requests go as wire bytes where its plan
// allows (scans compiles their types).
func remoteCaller(conn grpc.ClientConnInterface, recv remote.RecvLimit, md protoreflect.MethodDescriptor, scans *wirescan.Types) caller {
	if md.IsStreamingClient() || md.IsStreamingServer() {
		inv := &remote.StreamMethod{Conn: conn, Recv: recv, Desc: grpc.StreamDesc{
			ServerStreams: md.IsStreamingServer(),
			ClientStreams: md.IsStreamingClient(),
		}}
		return caller{remote: true, invoker: func(*bind.Request) exchange.Invoker { return inv }}
	}
	return caller{remote: true, invoker: func(req *bind.Request) exchange.Invoker {
		return &remote.UnaryMethod{Conn: conn, Recv: recv, Wire: remote.NewWirePlan(scans, req)}
	}}
}

// setRemoteTypes gives the resolver the types of every backend, with
// types for rm.
func (g *Gateway) setRemoteTypes(rm *backend, types *dynamicpb.Types) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var all []*dynamicpb.Types
	if !slices.Contains(g.remotes, rm) && types != nil {
		all = append(all, types)
	}
	for _, r := range g.remotes {
		t := r.types
		if r == rm {
			t = types
		}
		if t != nil {
			all = append(all, t)
		}
	}
	g.resolver.SetRemote(all)
}

// Reload reads the descriptors of every remote backend again and swaps
// each backend's routes for the new ones atomically: requests in flight
// finish on the routes they matched, later ones see the new routes, and
// none sees a mix. A backend that fails to load keeps its old routes;
// Reload returns the errors, joined.
func (g *Gateway) Reload(ctx context.Context) error {
	g.mu.Lock()
	remotes := slices.Clone(g.remotes)
	g.mu.Unlock()
	var errs []error
	for _, rm := range remotes {
		err := g.loadRemote(ctx, rm)
		if err != nil {
			g.mu.Lock()
			if rm.entries == nil {
				rm.err = err
			}
			g.mu.Unlock()
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// pending reports whether a backend registered WithPending has no routes
// yet.
func (g *Gateway) pending() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, rm := range g.remotes {
		if rm.err != nil {
			return true
		}
	}
	return false
}
