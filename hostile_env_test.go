package protorest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/api/httpbody"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/stats"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// hostileEnv is one gateway under attack: conf.v1.Probes served
// in-process or through a real gRPC backend on loopback (RegisterRemote),
// behind a real net/http server configured as protorest serve configures
// its own (64 KiB of header, h2c besides HTTP/1.1). The gateway has
// WithCompression; a second one, without it (serve's default), serves
// the same backend at plainAddr.
type hostileEnv struct {
	mode      string // "in-process" or "remote"
	addr      string // the HTTP server's host:port
	url       string
	plainAddr string // the gateway without WithCompression
	plainURL  string
	backend   *hostileBackend
	panics    atomic.Int64 // panics the gateways recovered (their panic hook)
}

// calls is the number of calls that reached conf.v1.Probes's methods:
// in-process, the interceptors the gateway runs them through; remote,
// every RPC the gRPC server received, counted by its stats handler before
// it decodes anything.
func (e *hostileEnv) calls() int64 { return e.backend.calls.Load() }

func newHostileEnv(t *testing.T, mode string) *hostileEnv {
	t.Helper()
	be := &hostileBackend{}
	be.streams.Store(newStreamer())
	e := &hostileEnv{mode: mode, backend: be}
	var conn *grpc.ClientConn
	if mode == "remote" {
		srv := grpc.NewServer(grpc.StatsHandler(rpcCounter{&be.calls}))
		confv1.RegisterProbesServer(srv, be)
		reflection.Register(srv)
		conn = dial(t, serveGRPC(t, srv))
	}
	hs := e.serve(t, conn, protorest.WithCompression(protorest.Compression{}))
	e.addr, e.url = hs.Listener.Addr().String(), hs.URL
	hs = e.serve(t, conn)
	e.plainAddr, e.plainURL = hs.Listener.Addr().String(), hs.URL
	return e
}

// serve serves e's backend through a new gateway with opts: in-process,
// or through conn when it is not nil.
func (e *hostileEnv) serve(t *testing.T, conn *grpc.ClientConn, opts ...protorest.Option) *httptest.Server {
	t.Helper()
	be := e.backend
	opts = append(opts, protorest.WithPanicHook(func(string, any, []byte) { e.panics.Add(1) }))
	if conn == nil {
		opts = append(opts,
			protorest.WithUnaryInterceptors(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
				be.calls.Add(1)
				return h(ctx, req)
			}),
			protorest.WithStreamInterceptors(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
				be.calls.Add(1)
				return h(srv, ss)
			}))
	}
	gw := protorest.NewGateway(opts...)
	if conn == nil {
		confv1.RegisterProbesServer(gw, be)
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := gw.RegisterRemote(ctx, conn, protorest.WithReflection("conf.v1.Probes")); err != nil {
			t.Fatal(err)
		}
	}
	hs := httptest.NewUnstartedServer(gw)
	hs.Config.MaxHeaderBytes = 64 << 10
	hs.Config.Protocols = new(http.Protocols)
	hs.Config.Protocols.SetHTTP1(true)
	hs.Config.Protocols.SetUnencryptedHTTP2(true)
	hs.Start()
	t.Cleanup(hs.Close)
	return hs
}

// rpcCounter counts the RPCs a gRPC server receives to conf.v1.Probes,
// reflection's excepted.
type rpcCounter struct{ n *atomic.Int64 }

func (c rpcCounter) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (c rpcCounter) HandleRPC(_ context.Context, s stats.RPCStats) {
	if in, ok := s.(*stats.InHeader); ok && strings.HasPrefix(in.FullMethod, "/conf.v1.Probes/") {
		c.n.Add(1)
	}
}
func (c rpcCounter) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (c rpcCounter) HandleConn(context.Context, stats.ConnStats)                       {}

// hostileBackend is conf.v1.Probes: the streaming methods of streamer,
// and unary methods that record what they got and answer with the
// request's name (a request echoed whole would measure the response, not
// the request).
type hostileBackend struct {
	confv1.UnimplementedProbesServer
	streams atomic.Pointer[streamer] // a new one for each shape: its channels close once
	calls   atomic.Int64

	mu   sync.Mutex
	last hostileCall
}

// hostileCall is what a method got: the request's fields the shapes
// check (not a copy of the request, which would count in the memory the
// shapes measure).
type hostileCall struct {
	method   string
	name     string
	blob     int    // bytes in blob
	unknown  string // the request's unknown fields
	inner    bool   // inner is set
	md       metadata.MD
	deadline time.Duration // how far away the call's deadline was; 0 for none
}

func (b *hostileBackend) record(ctx context.Context, method string, req *confv1.Probe) (*confv1.Probe, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	c := hostileCall{method: method, name: req.GetName(), blob: len(req.GetBlob()), unknown: string(req.ProtoReflect().GetUnknown()),
		inner: req.Inner != nil, md: md}
	if dl, ok := ctx.Deadline(); ok {
		c.deadline = time.Until(dl)
	}
	b.mu.Lock()
	b.last = c
	b.mu.Unlock()
	return &confv1.Probe{Name: req.GetName()}, nil
}

func (b *hostileBackend) lastCall() hostileCall {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last
}

func (b *hostileBackend) GetProbe(ctx context.Context, r *confv1.Probe) (*confv1.Probe, error) {
	return b.record(ctx, "GetProbe", r)
}
func (b *hostileBackend) ListProbes(ctx context.Context, r *confv1.Probe) (*confv1.Probe, error) {
	return b.record(ctx, "ListProbes", r)
}
func (b *hostileBackend) GetBook(ctx context.Context, r *confv1.Probe) (*confv1.Probe, error) {
	return b.record(ctx, "GetBook", r)
}
func (b *hostileBackend) GetFile(ctx context.Context, r *confv1.Probe) (*confv1.Probe, error) {
	return b.record(ctx, "GetFile", r)
}
func (b *hostileBackend) GetNested(ctx context.Context, r *confv1.Probe) (*confv1.Probe, error) {
	return b.record(ctx, "GetNested", r)
}
func (b *hostileBackend) CreateProbe(ctx context.Context, r *confv1.Probe) (*confv1.Probe, error) {
	return b.record(ctx, "CreateProbe", r)
}
func (b *hostileBackend) Watch(r *confv1.Probe, s grpc.ServerStreamingServer[confv1.Probe]) error {
	return b.streams.Load().Watch(r, s)
}
func (b *hostileBackend) BulkCreate(s grpc.ClientStreamingServer[confv1.Probe, confv1.Probe]) error {
	return b.streams.Load().BulkCreate(s)
}
func (b *hostileBackend) Chat(s grpc.BidiStreamingServer[confv1.Probe, confv1.Probe]) error {
	return b.streams.Load().Chat(s)
}
func (b *hostileBackend) StreamUpload(s grpc.ClientStreamingServer[confv1.UploadRequest, confv1.Probe]) error {
	return b.streams.Load().StreamUpload(s)
}

// RawEcho answers a google.api.HttpBody with itself.
func (b *hostileBackend) RawEcho(ctx context.Context, r *httpbody.HttpBody) (*httpbody.HttpBody, error) {
	b.record(ctx, "RawEcho", &confv1.Probe{Name: r.GetContentType(), Blob: r.GetData()})
	return r, nil
}
func (b *hostileBackend) DeleteProbe(context.Context, *confv1.Probe) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}
