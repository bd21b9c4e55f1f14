package protorest

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest/internal/descsource"
	"github.com/protorest/protorest/internal/route"
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
	load func(ctx context.Context, conn grpc.ClientConnInterface) (*descsource.Set, error)
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

// WithRemoteFiles takes the backend's descriptors from files the caller
// already has: the named services, or all the services in files.
func WithRemoteFiles(files *protoregistry.Files, services ...string) RemoteOption {
	return remoteOptionFunc(func(c *remoteConfig) {
		c.load = func(context.Context, grpc.ClientConnInterface) (*descsource.Set, error) {
			return descsource.FromFiles(files, services...)
		}
	})
}

// RegisterRemote routes the annotated methods of a gRPC backend reached
// over conn (a *grpc.ClientConn to host:port, dns:///name, unix:///path…).
// Requests are transcoded to protobuf and sent with conn.Invoke; the
// request's metadata (see DefaultHeaderMatcher) and deadline go with the
// call, and the backend's header and trailer metadata come back as
// Grpc-Metadata-* headers and Grpc-Trailer-* trailers. The unary server
// interceptors given to NewGateway do not run for remote methods: put
// client interceptors on conn instead.
//
// Unlike RegisterService it returns its errors: descriptors that cannot
// be loaded, rules that cannot be served, or routes that conflict. It
// registers all of the services or none.
func (g *Gateway) RegisterRemote(ctx context.Context, conn grpc.ClientConnInterface, opts ...RemoteOption) error {
	cfg := remoteConfig{}
	WithReflection().applyRemote(&cfg)
	for _, o := range opts {
		o.applyRemote(&cfg)
	}
	set, err := cfg.load(ctx, conn)
	if err != nil {
		return fmt.Errorf("protorest: loading descriptors: %w", err)
	}
	g.resolver.add(dynamicpb.NewTypes(set.Files))

	var entries []*route.Entry[*endpoint]
	var names []string
	for _, sd := range set.Services {
		names = append(names, string(sd.FullName()))
		methods := sd.Methods()
		for i := 0; i < methods.Len(); i++ {
			md := methods.Get(i)
			target := &invoker{
				fullMethod: "/" + string(sd.FullName()) + "/" + string(md.Name()),
				conn:       conn,
				streaming:  md.IsStreamingClient() || md.IsStreamingServer(),
			}
			es, err := g.methodEntries(md, target)
			if err != nil {
				return err
			}
			entries = append(entries, es...)
		}
	}
	return g.add(entries, names...)
}

// invokeRemote sends the request to the backend as a dynamic message and
// returns its reply.
func (g *Gateway) invokeRemote(r *http.Request, b *binding, req *request) (proto.Message, metadata.MD, metadata.MD, error) {
	md, err := g.incomingMetadata(r)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx := metadata.NewOutgoingContext(r.Context(), md)
	ctx, cancel, err := withTimeout(ctx, r)
	if cancel != nil {
		defer cancel()
	}
	if err != nil {
		return nil, nil, nil, err
	}
	in := dynamicpb.NewMessage(b.input)
	if err := req.decode(in); err != nil {
		return nil, nil, nil, err
	}
	out := dynamicpb.NewMessage(b.output)
	var header, trailer metadata.MD
	err = b.conn.Invoke(ctx, b.fullMethod, in, out, grpc.Header(&header), grpc.Trailer(&trailer))
	if err != nil {
		return nil, header, trailer, err
	}
	return out, header, trailer, nil
}

// resolver finds message and extension types in the gateway's types and
// then in the descriptors of every remote backend, so that google.protobuf.Any
// values (error details included) of backend types render as JSON.
type resolver struct {
	base   *protoregistry.Types
	remote atomicList[*dynamicpb.Types]
}

func (r *resolver) add(t *dynamicpb.Types) { r.remote.append(t) }

func (r *resolver) FindMessageByName(name protoreflect.FullName) (protoreflect.MessageType, error) {
	if mt, err := r.base.FindMessageByName(name); err == nil {
		return mt, nil
	}
	for _, t := range r.remote.load() {
		if mt, err := t.FindMessageByName(name); err == nil {
			return mt, nil
		}
	}
	return nil, protoregistry.NotFound
}

func (r *resolver) FindMessageByURL(url string) (protoreflect.MessageType, error) {
	if mt, err := r.base.FindMessageByURL(url); err == nil {
		return mt, nil
	}
	for _, t := range r.remote.load() {
		if mt, err := t.FindMessageByURL(url); err == nil {
			return mt, nil
		}
	}
	return nil, protoregistry.NotFound
}

func (r *resolver) FindExtensionByName(name protoreflect.FullName) (protoreflect.ExtensionType, error) {
	if xt, err := r.base.FindExtensionByName(name); err == nil {
		return xt, nil
	}
	for _, t := range r.remote.load() {
		if xt, err := t.FindExtensionByName(name); err == nil {
			return xt, nil
		}
	}
	return nil, protoregistry.NotFound
}

func (r *resolver) FindExtensionByNumber(message protoreflect.FullName, field protoreflect.FieldNumber) (protoreflect.ExtensionType, error) {
	if xt, err := r.base.FindExtensionByNumber(message, field); err == nil {
		return xt, nil
	}
	for _, t := range r.remote.load() {
		if xt, err := t.FindExtensionByNumber(message, field); err == nil {
			return xt, nil
		}
	}
	return nil, protoregistry.NotFound
}

// atomicList is a copy-on-write list: appends are serialised, loads never
// block.
type atomicList[T any] struct {
	mu   sync.Mutex
	list atomic.Pointer[[]T]
}

func (l *atomicList[T]) append(v T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var next []T
	if cur := l.list.Load(); cur != nil {
		next = append(next, *cur...)
	}
	next = append(next, v)
	l.list.Store(&next)
}

func (l *atomicList[T]) load() []T {
	if p := l.list.Load(); p != nil {
		return *p
	}
	return nil
}
