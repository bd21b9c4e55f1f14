package protorest_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// serveGateway serves gw with protorest.NewServer and Serve on a loopback
// port, with TLS when withTLS, and returns its address.
func serveGateway(t *testing.T, gw http.Handler, withTLS bool) string {
	t.Helper()
	srv := protorest.NewServer("", gw)
	if withTLS {
		ts := httptest.NewUnstartedServer(nil)
		ts.StartTLS()
		ts.Close()
		srv.TLSConfig = &tls.Config{Certificates: ts.TLS.Certificates}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- protorest.Serve(srv, l) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	return l.Addr().String()
}

// TestProtocolsGRPCInProcess: a grpc-go client dialling the gateway's
// own port, h2c and TLS, calls the services registered on it, through
// the gateway's interceptors, with or without GRPCPassThrough: unary with
// metadata both ways, a server stream, a bidirectional stream, and an
// error.
func TestProtocolsGRPCInProcess(t *testing.T) {
	var unaryCalls, streamCalls atomic.Int32
	gw := protorest.NewGateway(
		protorest.WithUnaryInterceptors(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			unaryCalls.Add(1)
			return h(ctx, req)
		}),
		protorest.WithStreamInterceptors(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			streamCalls.Add(1)
			return h(srv, ss)
		}))
	confv1.RegisterProbesServer(gw, metadataProbes{newStreamer()})
	// Behind GRPCPassThrough, the in-process service's calls are still
	// the gateway's: the upstream serves nothing.
	passThrough := gw.GRPCPassThrough(dial(t, serveGRPC(t, grpc.NewServer())))
	for _, mode := range []string{"h2c", "tls", "pass-through"} {
		withTLS := mode == "tls"
		creds := insecure.NewCredentials()
		if withTLS {
			creds = credentials.NewTLS(&tls.Config{InsecureSkipVerify: true})
		}
		var h http.Handler = gw
		if mode == "pass-through" {
			h = passThrough
		}
		t.Run(mode, func(t *testing.T) {
			conn, err := grpc.NewClient(serveGateway(t, h, withTLS), grpc.WithTransportCredentials(creds))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			client := confv1.NewProbesClient(conn)
			ctx := metadata.AppendToOutgoingContext(context.Background(), "x-custom", "v1")
			var header metadata.MD
			resp, err := client.GetProbe(ctx, &confv1.Probe{Name: "status-202", Tags: []string{"x-custom"}}, grpc.Header(&header))
			if err != nil {
				t.Fatal(err)
			}
			if resp.GetName() != "status-202" || strings.Join(resp.GetTags(), ",") != "x-custom=v1" {
				t.Errorf("response %v", resp)
			}
			if got := header.Get("x-http-code"); len(got) != 1 || got[0] != "202" {
				t.Errorf("header metadata %v", header)
			}
			if _, err := client.GetProbe(ctx, &confv1.Probe{Name: "denied"}); status.Code(err) != codes.PermissionDenied {
				t.Errorf("error %v, want PermissionDenied", err)
			}

			watch, err := client.Watch(ctx, &confv1.Probe{Name: "w", I32: 3})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for {
				p, err := watch.Recv()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, p.GetName())
			}
			if strings.Join(names, ",") != "w-1,w-2,w-3" {
				t.Errorf("stream %q", names)
			}
			if tr := watch.Trailer().Get("x-watch-trailer"); len(tr) != 1 || tr[0] != "done" {
				t.Errorf("trailer %v", watch.Trailer())
			}

			chat, err := client.Chat(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := chat.Send(&confv1.Probe{Name: "hi"}); err != nil {
				t.Fatal(err)
			}
			if p, err := chat.Recv(); err != nil || p.GetName() != "re: hi" {
				t.Fatalf("chat: %v, %v", p, err)
			}
			chat.CloseSend()
			if _, err := chat.Recv(); err != io.EOF {
				t.Errorf("chat end: %v", err)
			}
		})
	}
	if unaryCalls.Load() != 6 || streamCalls.Load() != 6 {
		t.Errorf("interceptors saw %d unary and %d stream calls, want 6 and 6", unaryCalls.Load(), streamCalls.Load())
	}
}

// TestGatewayServerReflection: reflection.Register(gw) serves gRPC server
// reflection on the gateway's port, listing the services registered
// in-process (GetServiceInfo) and the reflection services themselves (v1
// and v1alpha), and
// describing them, as grpcurl asks.
func TestGatewayServerReflection(t *testing.T) {
	t.Parallel()
	gw := protorest.NewGateway()
	confv1.RegisterProbesServer(gw, new(holder))
	reflection.Register(gw)
	info := gw.GetServiceInfo()
	probes, ok := info["conf.v1.Probes"]
	if !ok || probes.Metadata != confv1.File_internal_testpb_conf_v1_conf_proto.Path() || len(probes.Methods) == 0 {
		t.Fatalf("GetServiceInfo: %+v", info)
	}
	conn, err := grpc.NewClient(serveGateway(t, gw, false), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ask := func(req *reflectionpb.ServerReflectionRequest) *reflectionpb.ServerReflectionResponse {
		t.Helper()
		if err := stream.Send(req); err != nil {
			t.Fatal(err)
		}
		resp, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	var names []string
	for _, s := range ask(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}).GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	slices.Sort(names)
	if want := []string{"conf.v1.Probes", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"}; !slices.Equal(names, want) {
		t.Errorf("listed %v, want %v", names, want)
	}
	files := ask(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: "conf.v1.Probes"}}).GetFileDescriptorResponse()
	if len(files.GetFileDescriptorProto()) == 0 {
		t.Error("no file describes conf.v1.Probes")
	}
}
