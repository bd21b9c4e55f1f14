package protorest

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest/internal/descsource"
	"github.com/protorest/protorest/internal/remote"
)

// A RemoteOption configures RegisterRemote: where the backend's
// descriptors come from. The default is gRPC server reflection, for every
// service the backend lists.
type RemoteOption interface {
	applyRemote(*remote.Options)
}

type remoteOptionFunc func(*remote.Options)

func (f remoteOptionFunc) applyRemote(o *remote.Options) { f(o) }

// WithReflection reads the backend's descriptors with gRPC server
// reflection (grpc.reflection.v1, falling back to v1alpha): the named
// services, or with none every service it lists (except reflection and
// health). This is the default.
func WithReflection(services ...string) RemoteOption {
	return remoteOptionFunc(func(c *remote.Options) {
		c.Load = func(ctx context.Context, conn grpc.ClientConnInterface) (*descsource.Set, error) {
			return descsource.FromReflection(ctx, conn, services...)
		}
	})
}

// WithDescriptorSetFile reads the backend's descriptors from a serialized
// google.protobuf.FileDescriptorSet (buf build -o set.binpb, or protoc
// --descriptor_set_out --include_imports): the named services, or all.
func WithDescriptorSetFile(path string, services ...string) RemoteOption {
	return remoteOptionFunc(func(c *remote.Options) {
		c.Load = func(context.Context, grpc.ClientConnInterface) (*descsource.Set, error) {
			return descsource.FromDescriptorSetFile(path, services...)
		}
	})
}

// WithProtoFiles compiles the backend's .proto source files in-process:
// the named services, or all the services in files. Files and their
// imports resolve as protoc resolves them, relative to importPaths (the
// working directory when there are none); a file named relative to the
// working directory that lies under an import path works too. The
// well-known types and every google/api, google/rpc and google/type file of
// genproto's Go modules resolve without an import path.
func WithProtoFiles(importPaths, files []string, services ...string) RemoteOption {
	return remoteOptionFunc(func(c *remote.Options) {
		c.Load = func(ctx context.Context, _ grpc.ClientConnInterface) (*descsource.Set, error) {
			return descsource.FromProtoFiles(ctx, importPaths, files, services...)
		}
	})
}

// WithRemoteFiles takes the backend's descriptors from files the caller
// already has: the named services, or all the services in files.
func WithRemoteFiles(files *protoregistry.Files, services ...string) RemoteOption {
	return remoteOptionFunc(func(c *remote.Options) {
		c.Load = func(context.Context, grpc.ClientConnInterface) (*descsource.Set, error) {
			return descsource.FromFiles(files, services...)
		}
	})
}

// WithMaxBackendMessageBytes limits each message the gateway receives
// from the backend (a unary response, each message of a stream) to n
// bytes of its protobuf encoding: grpc-go refuses a longer one before
// reading it, and the client gets 500 INTERNAL "response too large", as
// past WithMaxResponseBytes (in-band once a stream has started), not
// grpc-go's RESOURCE_EXHAUSTED, whose 429 would have it retry. The limit
// is set on each call (grpc.MaxCallRecvMsgSize), in place of the
// connection's own. The default is WithMaxResponseBytes's n; n <= 0 sets
// none, leaving the connection's (grpc-go's default is 4 MiB).
func WithMaxBackendMessageBytes(n int) RemoteOption {
	return remoteOptionFunc(func(c *remote.Options) { c.MaxMessage, c.MaxMessageSet = max(n, 0), true })
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
	return remoteOptionFunc(func(o *remote.Options) { o.MaxHeader = max(n, 0) })
}

// RegisterRemote routes the annotated methods of a gRPC backend reached
// over conn (a *grpc.ClientConn to host:port, dns:///name, unix:///path…).
// Requests are transcoded to protobuf and sent with conn.Invoke; the
// request's metadata (see DefaultHeaderMatcher) and deadline go with the
// call, and the backend's header and trailer metadata come back as
// Grpc-Metadata-* headers and Grpc-Trailer-* trailers; each message of
// the backend's is limited in size (WithMaxBackendMessageBytes). The
// unary server interceptors given to NewGateway do not run for remote
// methods: put client interceptors on conn instead. Dial conn with
// BackendDialOptions, which keep a stream whose client stops reading from
// piling the backend's messages in the gateway.
//
// A request goes to the backend as wire bytes, with no message built,
// where the gateway can make them so (a binary body for a rule whose
// body is "*", once a scan finds that decoding it would succeed; a JSON
// body; path variables and query parameters), and is decoded otherwise,
// with the same errors. Such a request, and every remote response,
// reaches conn's client interceptors (and stats handlers) as a
// google.protobuf.Empty whose unknown fields are the message's bytes; a
// request's bytes are the gateway's pooled memory, valid only until the
// call returns: an interceptor that keeps the message must clone it.
//
// Unlike RegisterService it returns its errors: descriptors that cannot
// be loaded, rules that cannot be served, routes that conflict, or the
// options' mistakes (see Option). It registers all of the services or
// none. Reload reads the descriptors again and swaps the backend's routes.
//
// A call that does not reach the backend (grpc-go finds no connection to
// it, cannot resolve its address, or loses the connection mid-call) gets
// 503 UNAVAILABLE "upstream unavailable": grpc-go's message names
// addresses, which are no business of the client's. The error the error
// handler and CallInfo.Err are given matches ErrBackendUnreachable and
// has grpc-go's message in its text, for the log. An UNAVAILABLE the
// backend sends itself is passed on as it is.
//
// One grpc.ClientConn carries every call on one HTTP/2 connection, whose
// backend allows a limited number of streams (often 100): past it a call
// waits for another to end. NewBackendPool dials several connections, and
// WithConcurrencyLimits keeps long streams from taking them all.
//
// With WithPending, a backend whose descriptors cannot be loaded yet (it
// is down, or starting) stays registered: RegisterRemote returns an error
// that wraps ErrNotLoaded, requests that no route matches get 503
// UNAVAILABLE naming the cause, and a later Reload picks the routes up.
func (g *Gateway) RegisterRemote(ctx context.Context, conn grpc.ClientConnInterface, opts ...RemoteOption) error {
	o := remote.Options{MaxHeader: remote.DefaultMaxHeaderBytes}
	WithReflection().applyRemote(&o)
	for _, opt := range opts {
		opt.applyRemote(&o)
	}
	return g.gw.RegisterRemote(ctx, conn, o)
}

// WithPending keeps a backend registered when its descriptors cannot be
// loaded yet; see RegisterRemote. Rules that cannot be served still fail.
func WithPending() RemoteOption {
	return remoteOptionFunc(func(c *remote.Options) { c.Pending = true })
}

// ErrNotLoaded is wrapped by the errors of RegisterRemote and Reload when
// a backend's descriptors could not be loaded (as opposed to loaded
// descriptors whose rules cannot be served).
var ErrNotLoaded = remote.ErrNotLoaded

// ErrBackendUnreachable is matched (errors.Is) by the error of a remote
// call that did not reach its backend: its status is UNAVAILABLE
// "upstream unavailable", its text (Error) adds grpc-go's, and it
// unwraps to grpc-go's error.
var ErrBackendUnreachable = remote.ErrUnreachable

// Reload reads the descriptors of every remote backend again and swaps
// each backend's routes for the new ones atomically: requests in flight
// finish on the routes they matched, later ones see the new routes, and
// none sees a mix. A backend that fails to load keeps its old routes;
// Reload returns the errors, joined.
func (g *Gateway) Reload(ctx context.Context) error {
	return g.gw.Reload(ctx)
}
