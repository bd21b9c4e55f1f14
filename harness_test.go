package protorest_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/protorest/protorest/internal/testpb/conf/v1"
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
