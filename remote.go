package protorest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"slices"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/descsource"
	"github.com/protorest/protorest/internal/jsonenc"
	"github.com/protorest/protorest/internal/route"
	"github.com/protorest/protorest/internal/text"
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

// RegisterRemote routes the annotated methods of a gRPC backend reached
// over conn (a *grpc.ClientConn to host:port, dns:///name, unix:///path…).
// Requests are transcoded to protobuf and sent with conn.Invoke; the
// request's metadata (see DefaultHeaderMatcher) and deadline go with the
// call, and the backend's header and trailer metadata come back as
// Grpc-Metadata-* headers and Grpc-Trailer-* trailers. The unary server
// interceptors given to NewGateway do not run for remote methods: put
// client interceptors on conn instead.
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
// With WithPending, a backend whose descriptors cannot be loaded yet (it
// is down, or starting) stays registered: RegisterRemote returns an error
// that wraps ErrNotLoaded, requests that no route matches get 503
// UNAVAILABLE naming the cause, and a later Reload picks the routes up.
func (g *Gateway) RegisterRemote(ctx context.Context, conn grpc.ClientConnInterface, opts ...RemoteOption) error {
	cfg := remoteConfig{}
	WithReflection().applyRemote(&cfg)
	for _, o := range opts {
		o.applyRemote(&cfg)
	}
	rm := &remote{conn: conn, load: cfg.load}
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

// notLoadedError is a failure to load descriptors; the cause names where
// they came from ("reflection: …", "descriptor set x.binpb: …").
type notLoadedError struct{ err error }

func (e notLoadedError) Error() string        { return "protorest: " + e.err.Error() }
func (e notLoadedError) Unwrap() error        { return e.err }
func (e notLoadedError) Is(target error) bool { return target == ErrNotLoaded }

// remote is one RegisterRemote: how to load its descriptors, and what the
// last load registered. Its fields are guarded by Gateway.mu.
type remote struct {
	conn     grpc.ClientConnInterface
	load     func(context.Context, grpc.ClientConnInterface) (*descsource.Set, error)
	entries  []*route.Entry[*endpoint]
	services []string
	types    *dynamicpb.Types
	err      error // why nothing is loaded yet, for a pending backend

	fingerprint [sha256.Size]byte // of the descriptors loaded
}

// loadRemote loads rm's descriptors and swaps its routes and types for
// the new ones. Loads are serialised, so that each starts from the routes
// the last one left.
func (g *Gateway) loadRemote(ctx context.Context, rm *remote) error {
	g.loadMu.Lock()
	defer g.loadMu.Unlock()
	set, err := rm.load(ctx, rm.conn)
	if err != nil {
		return notLoadedError{err}
	}
	// Unchanged descriptors keep the routes and types they have: a reload
	// on an interval or a reconnect costs no new plans.
	sum := fingerprint(set)
	g.mu.Lock()
	same := rm.entries != nil && sum == rm.fingerprint
	g.mu.Unlock()
	if same {
		return nil
	}
	var entries []*route.Entry[*endpoint]
	var names []string
	scans := wirescan.NewTypes(nil) // proto.Unmarshal's resolver, as codec.Proto's
	for _, sd := range set.Services {
		names = append(names, string(sd.FullName()))
		methods := sd.Methods()
		for i := range methods.Len() {
			md := methods.Get(i)
			target := &invoker{
				fullMethod:    "/" + string(sd.FullName()) + "/" + string(md.Name()),
				conn:          rm.conn,
				clientStreams: md.IsStreamingClient(),
				serverStreams: md.IsStreamingServer(),
			}
			es, err := g.methodEntries(md, target)
			if err != nil {
				return err
			}
			for _, e := range es {
				e.Value.binding.wire = newWirePlan(scans, e.Value.binding)
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

// fingerprint identifies the services of set and the files they come
// from.
func fingerprint(set *descsource.Set) [sha256.Size]byte {
	h := sha256.New()
	for _, sd := range set.Services {
		h.Write([]byte(sd.FullName()))
		h.Write([]byte{0})
	}
	var files []protoreflect.FileDescriptor
	set.Files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		files = append(files, fd)
		return true
	})
	slices.SortFunc(files, func(a, b protoreflect.FileDescriptor) int { return strings.Compare(a.Path(), b.Path()) })
	opts := proto.MarshalOptions{Deterministic: true}
	for _, fd := range files {
		b, _ := opts.Marshal(protodesc.ToFileDescriptorProto(fd))
		h.Write(b)
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// setRemoteTypes gives the resolver the types of every backend, with
// types for rm.
func (g *Gateway) setRemoteTypes(rm *remote, types *dynamicpb.Types) {
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
	g.resolver.setRemote(all)
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

// invokeRemote sends the request to the backend, as the client's bytes
// when wireRequest can, else as a dynamic message, and returns its reply.
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
	in, ok := g.wireRequest(b, req)
	if !ok {
		msg := dynamicpb.NewMessage(b.input)
		if err := req.decode(msg); err != nil {
			return nil, nil, nil, err
		}
		in = msg
	}
	out := newWireResponse()
	var header, trailer metadata.MD
	err = b.conn.Invoke(ctx, b.fullMethod, in, out, grpc.Header(&header), grpc.Trailer(&trailer))
	if err != nil {
		return nil, header, trailer, err
	}
	return out, header, trailer, nil
}

// wirePlan is how a remote unary binding sends a binary request body to
// the backend as it is, with no message built: its type compiled for the
// scan that checks the body as decoding it would, and an empty read-only
// request for the query parameters' checks.
type wirePlan struct {
	scan *wirescan.Message
	zero protoreflect.Message
}

// newWirePlan returns the plan for b, or nil when its requests must be
// decoded: a streaming method; a body other than "*" (the bytes are a
// field's, not the request's) or into a google.api.HttpBody (the bytes are
// its data); a path variable that appending cannot set (see appendable).
func newWirePlan(scans *wirescan.Types, b *binding) *wirePlan {
	if b.streaming() || b.body.kind != bodyAll || b.body.raw != nil {
		return nil
	}
	for _, pv := range b.vars {
		if !appendable(pv.field.Path()) {
			return nil
		}
	}
	return &wirePlan{scan: scans.Message(b.input), zero: dynamicpb.NewMessageType(b.input).Zero()}
}

// appendable reports whether appending the encoding of a path variable's
// field to the body sets it as decoding and then setting it does: the path
// wins over the body. That holds for a singular scalar, whose last value
// wins, reached through singular messages, which merge. Not for a message
// (a Timestamp from the path replaces the body's; appended, it would
// merge), a repeated field (replaced, not extended), or a path through a
// oneof member (setting it fails when the body set another member, which
// only decoding the body tells).
func appendable(path []protoreflect.FieldDescriptor) bool {
	leaf := path[len(path)-1]
	if leaf.IsList() || leaf.IsMap() || leaf.Message() != nil {
		return false
	}
	for _, fd := range path {
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			return false
		}
	}
	return true
}

// wireRequest returns the request as wire bytes when the binding has a
// wirePlan: the body's own bytes when it is binary (codec.Proto), the
// JSON body transcoded straight to the wire form when it is JSON (the
// built-in codec.JSON: no dynamic message is built), with the path
// variables' fields appended. It reports false whenever anything differs
// from the plain case: the scan rejects the body, the JSON decoder leaves
// it to protojson, a path variable or query parameter fails, or a path
// variable's value is one that encodes to nothing (the zero value of a
// field without presence: appended, it would not override the body's).
// The caller then decodes the request, which gives the error, or the same
// request, as before.
//
// The bytes travel as the unknown fields of an Empty, which grpc's codec
// writes out verbatim. A client interceptor on the connection sees that
// Empty, not a message of the method's input type.
func (g *Gateway) wireRequest(b *binding, req *request) (proto.Message, bool) {
	w := b.wire
	if w == nil {
		return nil, false
	}
	var data []byte
	switch {
	case isProtoCodec(req.in):
		if w.scan.Scan(req.body) != nil {
			return nil, false
		}
		data = req.body
	case req.in == Codec(g.codecs.json):
		buf := bufferPool.Get().(*bytes.Buffer)
		req.wireBuf = buf // released with the request, after the call
		var ok bool
		if data, ok = g.codecs.json.AppendProto(buf.AvailableBuffer(), b.input, req.body); !ok {
			return nil, false
		}
		keepRoom(buf, data)
	default:
		return nil, false
	}
	if len(b.vars) > 0 {
		bound := dynamicpb.NewMessage(b.input)
		for i, pv := range b.vars {
			val, err := g.pathValue(req.m.RawVar(i), pv.field.String(), pv.multi)
			if err != nil || pv.field.SetPathValue(bound, val) != nil {
				return nil, false
			}
		}
		for _, pv := range b.vars {
			if !isSet(bound, pv.field.Path()) {
				return nil, false
			}
		}
		// Not AllowPartial: a message on a variable's path that lacks a
		// required field fails here, and the request is decoded instead
		// (to fail in grpc's codec, unless the body set that field).
		var err error
		if data, err = (proto.MarshalOptions{}).MarshalAppend(data, bound); err != nil {
			return nil, false
		}
	}
	// The rule's body is "*", so the query sets no field: it only checks
	// that the parameters are ignored ones.
	if raw := req.r.URL.RawQuery; raw != "" && b.query.Bind(w.zero, raw) != nil {
		return nil, false
	}
	in := new(emptypb.Empty)
	in.ProtoReflect().SetUnknown(data)
	return in, true
}

// isSet reports whether the field at path is set in m, so that its
// encoding is not empty.
func isSet(m *dynamicpb.Message, path []protoreflect.FieldDescriptor) bool {
	pm := protoreflect.Message(m)
	for _, fd := range path[:len(path)-1] {
		pm = pm.Get(fd).Message()
	}
	return pm.Has(path[len(path)-1])
}

// newWireResponse returns what a remote backend's response is received
// into: decoded into an Empty, every field is an unknown field, kept
// verbatim, so the message carries the backend's bytes with no types to
// build. appendResponse turns them into the response body.
func newWireResponse() *emptypb.Empty { return new(emptypb.Empty) }

// appendWire encodes a remote response given as its wire bytes: straight
// to JSON for a whole-message JSON response, as they are for a binary one,
// and through a dynamic message otherwise (response_body, HttpBody, other
// codecs, types the wire transcoder leaves alone).
func (g *Gateway) appendWire(dst []byte, b *binding, data []byte, out int) ([]byte, string, error) {
	if b.response.path == nil && b.response.raw == nil {
		switch c := g.codecs.list[out]; {
		case c == Codec(g.codecs.json):
			body, err := g.codecs.json.AppendWire(dst, b.output, data)
			if err == nil {
				return body, codec.MediaJSON, nil
			}
			if !errors.Is(err, jsonenc.ErrUnsupported) {
				return nil, "", status.Error(codes.Internal, "encoding the response: "+text.CleanError(err))
			}
		case isProtoCodec(c):
			return data, g.codecs.types[out], nil // binary to binary: untouched
		}
	}
	msg := dynamicpb.NewMessage(b.output)
	if err := proto.Unmarshal(data, msg); err != nil {
		return nil, "", status.Error(codes.Internal, "decoding the backend's response: "+text.CleanError(err))
	}
	return g.appendMessage(dst, b, msg, out)
}

func isProtoCodec(c Codec) bool {
	_, ok := c.(codec.Proto)
	return ok
}
