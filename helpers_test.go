package protorest_test

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/genproto/googleapis/api/httpbody"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/protorest/protorest"
	bookstorev1 "github.com/protorest/protorest/examples/bookstore/v1"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	"github.com/protorest/protorest/examples/services"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// recorder is a gRPC service implementation for any service descriptor:
// it records every call and answers with reply (by default an empty
// response message).
type recorder struct {
	mu    sync.Mutex
	calls []recorded
	reply func(method string, req proto.Message) (proto.Message, error)
}

type recorded struct {
	method string // short method name, e.g. "GetProbe"
	req    proto.Message
	md     metadata.MD
	ctx    context.Context
}

func (r *recorder) last(t *testing.T) recorded {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.calls) == 0 {
		t.Fatal("no method was called")
	}
	return r.calls[len(r.calls)-1]
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// serveGRPC serves srv on a loopback port until the test ends and
// returns its address.
func serveGRPC(t testing.TB, srv *grpc.Server) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

// serviceDesc builds a grpc.ServiceDesc for the named service whose
// handlers record into rec, as generated code would, but for any service.
// With only, it includes just those methods.
func serviceDesc(t testing.TB, service string, rec *recorder, only ...string) *grpc.ServiceDesc {
	t.Helper()
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(service))
	if err != nil {
		t.Fatal(err)
	}
	sd := d.(protoreflect.ServiceDescriptor)
	desc := &grpc.ServiceDesc{ServiceName: service, Metadata: sd.ParentFile().Path()}
	for i := 0; i < sd.Methods().Len(); i++ {
		md := sd.Methods().Get(i)
		name := string(md.Name())
		if len(only) > 0 && !contains(only, name) {
			continue
		}
		if md.IsStreamingClient() || md.IsStreamingServer() {
			desc.Streams = append(desc.Streams, grpc.StreamDesc{
				StreamName:    name,
				ServerStreams: md.IsStreamingServer(),
				ClientStreams: md.IsStreamingClient(),
				Handler: func(any, grpc.ServerStream) error {
					return status.Error(codes.Unimplemented, "not in this test")
				},
			})
			continue
		}
		in, err := protoregistry.GlobalTypes.FindMessageByName(md.Input().FullName())
		if err != nil {
			t.Fatal(err)
		}
		out, err := protoregistry.GlobalTypes.FindMessageByName(md.Output().FullName())
		if err != nil {
			t.Fatal(err)
		}
		full := "/" + service + "/" + name
		desc.Methods = append(desc.Methods, grpc.MethodDesc{
			MethodName: name,
			Handler: func(srv any, ctx context.Context, dec func(any) error, ic grpc.UnaryServerInterceptor) (any, error) {
				req := in.New().Interface()
				if err := dec(req); err != nil {
					return nil, err
				}
				h := func(ctx context.Context, req any) (any, error) {
					md, _ := metadata.FromIncomingContext(ctx)
					rec.mu.Lock()
					rec.calls = append(rec.calls, recorded{method: name, req: req.(proto.Message), md: md, ctx: ctx})
					rec.mu.Unlock()
					if rec.reply != nil {
						return rec.reply(name, req.(proto.Message))
					}
					return out.New().Interface(), nil
				}
				if ic == nil {
					return h(ctx, req)
				}
				return ic(ctx, req, &grpc.UnaryServerInfo{Server: srv, FullMethod: full}, h)
			},
		})
	}
	return desc
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// response is what a test sees of an HTTP exchange.
type response struct {
	code   int
	header http.Header
	body   string
}

// do sends one request through h in-process.
func do(t testing.TB, h http.Handler, method, target, body string, headers ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return response{code: w.Code, header: w.Header(), body: w.Body.String()}
}

func newFixture(t testing.TB, fixture string, rec *recorder, opts ...protorest.Option) *protorest.Gateway {
	t.Helper()
	gw := protorest.NewGateway(opts...)
	switch fixture {
	case "A", "":
		gw.RegisterService(serviceDesc(t, "conf.v1.Probes", rec), nil)
	case "B":
		var only []string
		for _, n := range []string{"B1", "B2", "B3", "B4", "B5", "B6", "B7", "B9", "B10", "B11", "B12", "B13"} {
			only = append(only, n)
		}
		gw.RegisterService(serviceDesc(t, "conf.v1.Order", rec, only...), nil)
	case "C":
		gw.RegisterService(serviceDesc(t, "conf.v1.CatchAll", rec), nil)
		gw.RegisterService(serviceDesc(t, "conf.v1.Probes", rec, "GetProbe", "ListProbes"), nil)
	case "D":
		gw.RegisterService(serviceDesc(t, "conf.v1.DoAnything", rec), nil)
	default:
		t.Fatalf("no fixture %q", fixture)
	}
	return gw
}

// streamer implements the streaming methods of conf.v1.Probes. Watch
// sends req.i32 messages named name-1, name-2… (with req.id bytes of blob
// each); its name picks a failure:
// "fail-before" (NOT_FOUND with details, before any message) or
// "fail-after" (INTERNAL after the messages); with flag set it blocks
// until the call is canceled.
type streamer struct {
	confv1.UnimplementedProbesServer
	sent     atomic.Int64  // messages Watch has sent
	started  chan struct{} // closed when a blocking Watch starts
	canceled chan struct{} // closed when a blocking Watch sees its context end
}

func newStreamer() *streamer {
	return &streamer{started: make(chan struct{}), canceled: make(chan struct{})}
}

func (s *streamer) Watch(req *confv1.Probe, stream grpc.ServerStreamingServer[confv1.Probe]) error {
	stream.SetHeader(metadata.Pairs("x-watch", "yes"))
	stream.SetTrailer(metadata.Pairs("x-watch-trailer", "done"))
	if req.GetName() == "fail-before" {
		st, _ := status.New(codes.NotFound, "no such watch").WithDetails(&errdetails.ResourceInfo{ResourceName: "fail-before"})
		return st.Err()
	}
	if req.GetFlag() {
		stream.SendHeader(nil)
		close(s.started)
		<-stream.Context().Done()
		close(s.canceled)
		return stream.Context().Err()
	}
	var blob []byte
	if req.GetId() > 0 { // a payload of id bytes in each message
		blob = make([]byte, req.GetId())
	}
	for i := 1; i <= int(req.GetI32()); i++ {
		if err := stream.Send(&confv1.Probe{Name: fmt.Sprintf("%s-%d", req.GetName(), i), I32: int32(i), Blob: blob}); err != nil {
			return err
		}
		s.sent.Add(1)
	}
	if req.GetName() == "fail-after" {
		return status.Error(codes.Internal, "it broke")
	}
	return nil
}

func (s *streamer) BulkCreate(stream grpc.ClientStreamingServer[confv1.Probe, confv1.Probe]) error {
	var names []string
	for {
		p, err := stream.Recv()
		if err == io.EOF {
			return stream.SendAndClose(&confv1.Probe{Name: strings.Join(names, ","), I32: int32(len(names))})
		}
		if err != nil {
			return err
		}
		names = append(names, p.GetName())
	}
}

func (s *streamer) Chat(stream grpc.BidiStreamingServer[confv1.Probe, confv1.Probe]) error {
	for {
		p, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if p.GetName() == "hold" {
			// Stop reading: only the client's leaving can end this.
			close(s.started)
			<-stream.Context().Done()
			close(s.canceled)
			return stream.Context().Err()
		}
		if err := stream.Send(&confv1.Probe{Name: "re: " + p.GetName()}); err != nil {
			return err
		}
	}
}

// StreamUpload reports what its chunks carried: each one's name and
// content type, and the bytes in all.
func (s *streamer) StreamUpload(stream grpc.ClientStreamingServer[confv1.UploadRequest, confv1.Probe]) error {
	var parts []string
	var total int
	for {
		req, err := stream.Recv()
		if err == io.EOF {
			return stream.SendAndClose(&confv1.Probe{Name: strings.Join(parts, "|"), Id: int64(total), I32: int32(len(parts))})
		}
		if err != nil {
			return err
		}
		parts = append(parts, req.GetName()+";"+req.GetFile().GetContentType())
		total += len(req.GetFile().GetData())
	}
}

func (s *streamer) StreamDownload(req *confv1.Probe, stream grpc.ServerStreamingServer[httpbody.HttpBody]) error {
	for _, b := range []*httpbody.HttpBody{{ContentType: "text/html", Data: []byte("<h1>Hello!</h1>")}, {ContentType: "text/plain", Data: []byte("Hello!")}} {
		if err := stream.Send(b); err != nil {
			return err
		}
	}
	return nil
}

// streamGateways serves a streamer in-process and through a real gRPC
// backend, and returns both gateways' URLs, by name.
func streamGateways(t testing.TB, opts ...protorest.Option) (map[string]string, map[string]*streamer) {
	t.Helper()
	local, remote := newStreamer(), newStreamer()
	inProcess := httptest.NewServer(probesGateway(t, "in-process", local, opts...))
	t.Cleanup(inProcess.Close)
	remoteSrv := httptest.NewServer(probesGateway(t, "remote", remote, opts...))
	t.Cleanup(remoteSrv.Close)
	return map[string]string{"in-process": inProcess.URL, "remote": remoteSrv.URL},
		map[string]*streamer{"in-process": local, "remote": remote}
}

// probesGateway serves s as conf.v1.Probes, in-process or (kind "remote")
// through a real gRPC backend, leaving unpopulated fields out of JSON for
// readable expectations.
func probesGateway(t testing.TB, kind string, s confv1.ProbesServer, opts ...protorest.Option) *protorest.Gateway {
	t.Helper()
	opts = append([]protorest.Option{protorest.WithMarshalOptions(protojson.MarshalOptions{})}, opts...)
	gw := protorest.NewGateway(opts...)
	if kind == "in-process" {
		confv1.RegisterProbesServer(gw, s)
		return gw
	}
	backend := grpc.NewServer()
	confv1.RegisterProbesServer(backend, s)
	reflection.Register(backend)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := gw.RegisterRemote(ctx, dial(t, serveGRPC(t, backend)), protorest.WithReflection("conf.v1.Probes")); err != nil {
		t.Fatal(err)
	}
	return gw
}

// exchange is one HTTP exchange, read to the end (trailers included).
type exchange struct {
	code    int
	header  http.Header
	body    string
	trailer http.Header
	err     error // reading the body
}

// fetch sends one request with http.DefaultClient and reads the whole
// answer.
func fetch(t *testing.T, method, url, body string, headers ...string) exchange {
	t.Helper()
	return fetchWith(t, http.DefaultClient, method, url, strings.NewReader(body), headers...)
}

// fetchWith sends one request with client and reads the whole answer.
func fetchWith(t *testing.T, client *http.Client, method, url string, body io.Reader, headers ...string) exchange {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Content-Length" {
			fmt.Sscan(headers[i+1], &req.ContentLength)
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, rerr := io.ReadAll(resp.Body)
	return exchange{code: resp.StatusCode, header: resp.Header, body: string(b), trailer: resp.Trailer, err: rerr}
}

// metadataProbes adds to the streamer a GetProbe that answers with the
// metadata it was called with, as "key=value" tags, for the keys the
// request's tags name. A name "status-N" sets header metadata
// x-http-code: N; "denied" fails with PERMISSION_DENIED.
type metadataProbes struct{ *streamer }

func (metadataProbes) GetProbe(ctx context.Context, req *confv1.Probe) (*confv1.Probe, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	resp := &confv1.Probe{Name: req.GetName()}
	for _, k := range req.GetTags() {
		for _, v := range md.Get(k) {
			resp.Tags = append(resp.Tags, k+"="+v)
		}
	}
	switch name := req.GetName(); {
	case name == "denied":
		return nil, status.Error(codes.PermissionDenied, "no")
	case len(name) > len("status-") && name[:len("status-")] == "status-":
		grpc.SetHeader(ctx, metadata.Pairs("x-http-code", name[len("status-"):]))
	}
	return resp, nil
}

// optionGateways serves metadataProbes in-process and through a real gRPC
// backend, with opts, and returns their URLs by kind.
func optionGateways(t *testing.T, opts ...protorest.Option) map[string]string {
	t.Helper()
	urls := map[string]string{}
	for _, kind := range []string{"in-process", "remote"} {
		srv := httptest.NewServer(probesGateway(t, kind, metadataProbes{newStreamer()}, opts...))
		t.Cleanup(srv.Close)
		urls[kind] = srv.URL
	}
	return urls
}

// backend is a real gRPC server with the example services and
// reflection, recording the metadata and deadline of every call.
type backend struct {
	addr string

	mu       sync.Mutex
	md       metadata.MD
	deadline bool
}

func startBackend(t *testing.T, network, address string) *backend {
	t.Helper()
	lis, err := net.Listen(network, address)
	if err != nil {
		t.Fatal(err)
	}
	be := &backend{addr: lis.Addr().String()}
	if network == "unix" {
		be.addr = "unix://" + address
	}
	srv := grpc.NewServer(grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		_, hasDeadline := ctx.Deadline()
		be.mu.Lock()
		be.md, be.deadline = md, hasDeadline
		be.mu.Unlock()
		grpc.SetTrailer(ctx, metadata.Pairs("x-backend-trailer", "t"))
		return h(ctx, req)
	}))
	examplev1.RegisterMySvcServer(srv, services.NewMySvc())
	bookstorev1.RegisterBookServiceServer(srv, services.NewBookService())
	libraryv1.RegisterLibraryServiceServer(srv, services.NewLibrary())
	reflection.Register(srv)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return be
}

func dial(t testing.TB, target string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func remoteGateway(t *testing.T, conn *grpc.ClientConn, opts ...protorest.RemoteOption) *httptest.Server {
	t.Helper()
	gw := protorest.NewGateway()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := gw.RegisterRemote(ctx, conn, opts...); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)
	return srv
}

func send(t *testing.T, method, url, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp, readAll(t, resp)
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// h2cServer serves h over HTTP/1.1 and HTTP/2 with prior knowledge.
func h2cServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func wsDial(t *testing.T, url string, header http.Header) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"), &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func wsRead(t *testing.T, c *websocket.Conn) (websocket.MessageType, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	typ, b, err := c.Read(ctx)
	return typ, string(b), err
}

func wsWrite(t *testing.T, c *websocket.Conn, typ websocket.MessageType, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Write(ctx, typ, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

// wsClosed checks that the next read is the server's close, with code.
func wsClosed(t *testing.T, c *websocket.Conn, code websocket.StatusCode, reason string) {
	t.Helper()
	_, msg, err := wsRead(t, c)
	var ce websocket.CloseError
	if !errorAs(err, &ce) || ce.Code != code || ce.Reason != reason {
		t.Errorf("want close %d %q, got message %q, err %v", code, reason, msg, err)
	}
}

func errorAs(err error, ce *websocket.CloseError) bool {
	if err == nil {
		return false
	}
	if websocket.CloseStatus(err) == -1 {
		return false
	}
	for e := err; e != nil; {
		if c, ok := e.(websocket.CloseError); ok {
			*ce = c
			return true
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		e = u.Unwrap()
	}
	return false
}

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

func mustMarshal(m proto.Message) string {
	b, err := proto.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// ruleFiles builds a registry holding service t.v1.S whose methods M0,
// M1, … carry the given rules, over a request message with a few fields.
func ruleFiles(t *testing.T, rules ...*annotations.HttpRule) (*protoregistry.Files, *grpc.ServiceDesc) {
	t.Helper()
	str := descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()
	msg := descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum()
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	rep := descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("t/v1/t.proto"),
		Package: proto.String("t.v1"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("Inner"), Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("s"), Number: proto.Int32(1), Type: str, Label: opt, JsonName: proto.String("s")},
			}},
			{Name: proto.String("Req"), Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("name"), Number: proto.Int32(1), Type: str, Label: opt, JsonName: proto.String("name")},
				{Name: proto.String("inner"), Number: proto.Int32(2), Type: msg, TypeName: proto.String(".t.v1.Inner"), Label: opt, JsonName: proto.String("inner")},
				{Name: proto.String("items"), Number: proto.Int32(3), Type: msg, TypeName: proto.String(".t.v1.Inner"), Label: rep, JsonName: proto.String("items")},
			}},
		},
	}
	svc := &descriptorpb.ServiceDescriptorProto{Name: proto.String("S")}
	desc := &grpc.ServiceDesc{ServiceName: "t.v1.S"}
	for i, r := range rules {
		opts := &descriptorpb.MethodOptions{}
		proto.SetExtension(opts, annotations.E_Http, r)
		name := fmt.Sprintf("M%d", i)
		svc.Method = append(svc.Method, &descriptorpb.MethodDescriptorProto{
			Name: proto.String(name), InputType: proto.String(".t.v1.Req"), OutputType: proto.String(".t.v1.Req"), Options: opts,
		})
		desc.Methods = append(desc.Methods, grpc.MethodDesc{MethodName: name, Handler: func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) {
			return nil, nil
		}})
	}
	fdp.Service = []*descriptorpb.ServiceDescriptorProto{svc}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	files := new(protoregistry.Files)
	if err := files.RegisterFile(fd); err != nil {
		t.Fatal(err)
	}
	return files, desc
}

// headerLines returns n header lines (name, value pairs for do), the
// request's own headers besides.
func headerLines(n int) []string {
	var h []string
	for i := range n {
		h = append(h, "X-Line", strings.Repeat("x", i%7+1))
	}
	return h
}

// encode returns s in a content coding: gzip or zstd.
func encode(coding, s string) string {
	var b bytes.Buffer
	var w io.WriteCloser
	switch coding {
	case "gzip":
		w = gzip.NewWriter(&b)
	case "zstd":
		w, _ = zstd.NewWriter(&b)
	default:
		panic("no coding " + coding)
	}
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

// zstdBomb is a zstd body that decodes to {"name":" and n zero bytes.
func zstdBomb(n int) string {
	var b bytes.Buffer
	zw, _ := zstd.NewWriter(&b, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	zw.Write([]byte(`{"name":"`))
	zw.Write(make([]byte, n))
	zw.Close()
	return b.String()
}

func gzipBomb(n int) string {
	var b bytes.Buffer
	zw, _ := stdgzip.NewWriterLevel(&b, stdgzip.BestCompression)
	zw.Write([]byte(`{"name":"`))
	zw.Write(make([]byte, n))
	zw.Close()
	return b.String()
}

// remoteFixture is fixture A (conf.v1.Probes answering from rec) served
// by a real gRPC backend on loopback that the gateway calls remotely,
// each way's receive limit at 64 MiB (as protorest serve dials).
func remoteFixture(t testing.TB, rec *recorder, opts ...protorest.Option) *protorest.Gateway {
	t.Helper()
	srv := grpc.NewServer(grpc.MaxSendMsgSize(64 << 20))
	srv.RegisterService(serviceDesc(t, "conf.v1.Probes", rec), nil)
	conn, err := grpc.NewClient(serveGRPC(t, srv), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	gw := protorest.NewGateway(opts...)
	if err := gw.RegisterRemote(context.Background(), conn, protorest.WithRemoteFiles(protoregistry.GlobalFiles, "conf.v1.Probes")); err != nil {
		t.Fatal(err)
	}
	return gw
}
