package descsource

import (
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	rpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	rpbalpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	bookstorev1 "github.com/protorest/protorest/examples/bookstore/v1"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	"github.com/protorest/protorest/examples/services"
)

// streams records the streaming methods a server was asked for.
type streams struct {
	mu      sync.Mutex
	methods []string
}

func (s *streams) intercept(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	s.mu.Lock()
	s.methods = append(s.methods, info.FullMethod)
	s.mu.Unlock()
	return handler(srv, ss)
}

// unknown answers a method the server does not have, as grpc-go does
// without an UnknownServiceHandler; stream interceptors run before it.
func (s *streams) unknown(_ any, ss grpc.ServerStream) error {
	method, _ := grpc.MethodFromServerStream(ss)
	return status.Errorf(codes.Unimplemented, "unknown method %s", method)
}

func (s *streams) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.methods)
}

// serve starts a real grpc.Server on loopback with what register puts on
// it, and returns a connection to it and the record of its streams.
func serve(t *testing.T, register func(*grpc.Server)) (*grpc.ClientConn, *streams) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rec := &streams{}
	srv := grpc.NewServer(grpc.StreamInterceptor(rec.intercept), grpc.UnknownServiceHandler(rec.unknown))
	register(srv)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, rec
}

func registerExamples(srv *grpc.Server) {
	examplev1.RegisterMySvcServer(srv, services.NewMySvc())
	bookstorev1.RegisterBookServiceServer(srv, services.NewBookService())
	libraryv1.RegisterLibraryServiceServer(srv, services.NewLibrary())
	healthpb.RegisterHealthServer(srv, health.NewServer())
}

// Servers to load from.
var (
	// withReflection serves the examples, health, and reflection v1 and v1alpha.
	withReflection = func(srv *grpc.Server) {
		registerExamples(srv)
		reflection.Register(srv)
	}
	// withV1alpha serves the examples and reflection v1alpha only.
	withV1alpha = func(srv *grpc.Server) {
		registerExamples(srv)
		rpbalpha.RegisterServerReflectionServer(srv, reflection.NewServer(reflection.ServerOptions{Services: srv}))
	}
	// withoutReflection serves the examples only.
	withoutReflection = registerExamples
)

const (
	v1Method      = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
	v1alphaMethod = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"
)

func TestFromReflection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		server      func(*grpc.Server)
		names       []string
		want        []string
		wantStreams []string
		wantErr     []string
	}{
		{name: "v1 all", server: withReflection, want: exampleServices, wantStreams: []string{v1Method}},
		{name: "v1 named", server: withReflection,
			names:       []string{"library.v1.LibraryService", "bookstore.v1.BookService", "library.v1.LibraryService"},
			want:        []string{"bookstore.v1.BookService", "library.v1.LibraryService"},
			wantStreams: []string{v1Method}},
		{name: "v1 health named", server: withReflection, names: []string{"grpc.health.v1.Health"},
			want: []string{"grpc.health.v1.Health"}, wantStreams: []string{v1Method}},
		{name: "v1alpha fallback all", server: withV1alpha, want: exampleServices, wantStreams: []string{v1Method, v1alphaMethod}},
		{name: "v1alpha fallback named", server: withV1alpha, names: []string{"example.v1.MySvc"},
			want: []string{"example.v1.MySvc"}, wantStreams: []string{v1Method, v1alphaMethod}},

		{name: "unknown name", server: withReflection, names: []string{"example.v1.MySvc", "x.Y"},
			wantErr:     []string{`reflection: service "x.Y" not found on the server`, "bookstore.v1.BookService, example.v1.MySvc, library.v1.LibraryService"},
			wantStreams: []string{v1Method}},
		{name: "message name", server: withReflection, names: []string{"library.v1.Book"},
			wantErr: []string{`reflection: service "library.v1.Book" not found on the server`}},
		{name: "unknown name v1alpha", server: withV1alpha, names: []string{"x.Y"},
			wantErr: []string{`reflection: service "x.Y" not found on the server`}},
		{name: "no reflection", server: withoutReflection,
			wantErr:     []string{"reflection: the server does not support gRPC server reflection", "UNIMPLEMENTED"},
			wantStreams: []string{v1Method, v1alphaMethod}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			conn, rec := serve(t, tt.server)
			set, err := FromReflection(t.Context(), conn, tt.names...)
			if tt.wantErr != nil {
				wantError(t, err, tt.wantErr)
			} else if err != nil {
				t.Fatal(err)
			} else {
				checkSet(t, set, tt.want)
			}
			if tt.wantStreams != nil {
				if got := rec.get(); !slices.Equal(got, tt.wantStreams) {
					t.Errorf("streams = %q, want %q (one reflection stream per version tried)", got, tt.wantStreams)
				}
			}
		})
	}
}

func TestFromReflectionNoReflectionCode(t *testing.T) {
	t.Parallel()
	conn, _ := serve(t, withoutReflection)
	_, err := FromReflection(t.Context(), conn)
	if got := status.Code(err); got != codes.Unimplemented {
		t.Errorf("status.Code(%v) = %v, want Unimplemented", err, got)
	}
}

func TestFromReflectionContext(t *testing.T) {
	t.Parallel()
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		conn, _ := serve(t, withReflection)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := FromReflection(ctx, conn)
		wantError(t, err, []string{"reflection: "})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("deadline on a stalled server", func(t *testing.T) {
		t.Parallel()
		fake := newFakeReflection(closure(exampleFiles()...), nil)
		fake.stall = true
		conn, _ := serve(t, func(srv *grpc.Server) { rpb.RegisterServerReflectionServer(srv, fake) })
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := FromReflection(ctx, conn)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("FromReflection took %v past a 200ms deadline", d)
		}
	})
}

// TestFromReflectionDependencies loads from a reflection server that sends
// only the file defining a symbol, never its imports, and lacks some files.
func TestFromReflectionDependencies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   []*descriptorpb.FileDescriptorProto
		omit    func(string) bool
		names   []string
		want    []string
		wantErr []string
	}{
		{name: "all by file name", files: closure(exampleFiles()...), want: exampleServices},
		{name: "well-known files from GlobalFiles", files: closure(confFile()), omit: isGoogle, want: confServices},
		{name: "examples without google files", files: closure(exampleFiles()...), omit: isGoogle,
			names: []string{"library.v1.LibraryService"}, want: []string{"library.v1.LibraryService"}},
		{name: "hand-made files", files: thingFiles(), want: []string{"svc.v1.Things"}},
		{name: "missing dependency", files: thingFiles(), omit: func(n string) bool { return n == "dep/v1/dep.proto" },
			wantErr: []string{`reflection: the server does not have "dep/v1/dep.proto", imported by "svc/v1/svc.proto"`, "NotFound"}},
		{name: "listed but not described", files: thingFiles(), omit: func(n string) bool { return n == "svc/v1/svc.proto" },
			wantErr: []string{`reflection: the server lists service "svc.v1.Things" but cannot describe it`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := newFakeReflection(tt.files, tt.omit)
			conn, rec := serve(t, func(srv *grpc.Server) { rpb.RegisterServerReflectionServer(srv, fake) })
			set, err := FromReflection(t.Context(), conn, tt.names...)
			if got := rec.get(); !slices.Equal(got, []string{v1Method}) {
				t.Errorf("streams = %q, want one v1 stream", got)
			}
			if tt.wantErr != nil {
				wantError(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkSet(t, set, tt.want)
			if tt.omit != nil {
				for _, name := range fake.asked() {
					if tt.omit(name) {
						return // a well-known file was asked for and taken from GlobalFiles
					}
				}
				t.Error("no omitted file was asked for")
			}
		})
	}
}

// fakeReflection is a grpc.reflection.v1 server over a fixed set of files
// that, unlike grpc-go's, answers a symbol with its file alone and leaves
// the client to ask for the imports by name.
type fakeReflection struct {
	rpb.UnimplementedServerReflectionServer
	services []string          // listed
	files    map[string][]byte // by name
	symbols  map[string]string // service → file
	stall    bool              // never answer

	mu      sync.Mutex
	byNames []string // files asked for by name
}

func newFakeReflection(fds []*descriptorpb.FileDescriptorProto, omit func(string) bool) *fakeReflection {
	f := &fakeReflection{files: map[string][]byte{}, symbols: map[string]string{}}
	for _, fd := range fds {
		for _, sd := range fd.GetService() {
			name := sd.GetName()
			if fd.GetPackage() != "" {
				name = fd.GetPackage() + "." + name
			}
			f.services = append(f.services, name)
			f.symbols[name] = fd.GetName()
		}
		if omit != nil && omit(fd.GetName()) {
			continue
		}
		b, err := proto.Marshal(fd)
		if err != nil {
			panic(err)
		}
		f.files[fd.GetName()] = b
	}
	f.services = append(f.services, "grpc.reflection.v1.ServerReflection")
	return f
}

func (f *fakeReflection) asked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.byNames)
}

func (f *fakeReflection) ServerReflectionInfo(s rpb.ServerReflection_ServerReflectionInfoServer) error {
	for {
		req, err := s.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if f.stall {
			<-s.Context().Done()
			return s.Context().Err()
		}
		resp := &rpb.ServerReflectionResponse{OriginalRequest: req}
		notFound := &rpb.ServerReflectionResponse_ErrorResponse{ErrorResponse: &rpb.ErrorResponse{
			ErrorCode: int32(codes.NotFound), ErrorMessage: "not found",
		}}
		resp.MessageResponse = notFound
		switch r := req.MessageRequest.(type) {
		case *rpb.ServerReflectionRequest_ListServices:
			list := &rpb.ListServiceResponse{}
			for _, name := range f.services {
				list.Service = append(list.Service, &rpb.ServiceResponse{Name: name})
			}
			resp.MessageResponse = &rpb.ServerReflectionResponse_ListServicesResponse{ListServicesResponse: list}
		case *rpb.ServerReflectionRequest_FileContainingSymbol:
			if b, ok := f.files[f.symbols[r.FileContainingSymbol]]; ok {
				resp.MessageResponse = &rpb.ServerReflectionResponse_FileDescriptorResponse{
					FileDescriptorResponse: &rpb.FileDescriptorResponse{FileDescriptorProto: [][]byte{b}},
				}
			}
		case *rpb.ServerReflectionRequest_FileByFilename:
			f.mu.Lock()
			f.byNames = append(f.byNames, r.FileByFilename)
			f.mu.Unlock()
			if b, ok := f.files[r.FileByFilename]; ok {
				resp.MessageResponse = &rpb.ServerReflectionResponse_FileDescriptorResponse{
					FileDescriptorResponse: &rpb.FileDescriptorResponse{FileDescriptorProto: [][]byte{b}},
				}
			}
		}
		if err := s.Send(resp); err != nil {
			return err
		}
	}
}
