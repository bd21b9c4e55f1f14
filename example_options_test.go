package protorest_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	"github.com/protorest/protorest/examples/services"
)

// An annotator turns a session cookie into the authorization metadata
// that the methods (here, an interceptor) read, as grpc-gateway's
// WithMetadata does.
func ExampleWithMetadata() {
	gw := protorest.NewGateway(
		protorest.WithMetadata(func(r *http.Request) metadata.MD {
			if c, err := r.Cookie("session"); err == nil {
				return metadata.Pairs("authorization", "Bearer "+c.Value)
			}
			return nil
		}),
		protorest.WithUnaryInterceptors(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			md, _ := metadata.FromIncomingContext(ctx)
			fmt.Println(info.FullMethod, "authorization:", md.Get("authorization"))
			return h(ctx, req)
		}),
	)
	examplev1.RegisterMySvcServer(gw, services.NewMySvc())

	srv := httptest.NewServer(gw)
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/api/v1/example/upper", strings.NewReader(`{"msg":"hi"}`))
	req.AddCookie(&http.Cookie{Name: "session", Value: "s3cret"})
	show(http.DefaultClient.Do(req))
	// Output:
	// /example.v1.MySvc/Upper authorization: [Bearer s3cret]
	// 200 {"msg":"HI"}
}

// A response hook sets a cookie from the response and chooses the
// status, as grpc-gateway's WithForwardResponseOption does.
func ExampleWithResponseHook() {
	gw := protorest.NewGateway(protorest.WithResponseHook(func(w http.ResponseWriter, r *http.Request, resp proto.Message, _ metadata.MD) error {
		if up, ok := resp.(*examplev1.UpperResponse); ok {
			http.SetCookie(w, &http.Cookie{Name: "last", Value: up.GetMsg()})
			w.WriteHeader(http.StatusCreated)
		}
		return nil
	}))
	examplev1.RegisterMySvcServer(gw, services.NewMySvc())

	srv := httptest.NewServer(gw)
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/api/v1/example/upper", "application/json", strings.NewReader(`{"msg":"hi"}`))
	if err == nil {
		fmt.Println(resp.Header.Get("Set-Cookie"))
	}
	show(resp, err)
	// Output:
	// last=HI
	// 201 {"msg":"HI"}
}

// A routing error handler answers the requests no route matched, and
// only those.
func ExampleWithRoutingErrorHandler() {
	gw := protorest.NewGateway(protorest.WithRoutingErrorHandler(func(w http.ResponseWriter, r *http.Request, err error) {
		w.WriteHeader(protorest.HTTPStatus(err))
		fmt.Fprintf(w, "nothing at %s %s", r.Method, r.URL.Path)
	}))
	examplev1.RegisterMySvcServer(gw, services.NewMySvc())

	srv := httptest.NewServer(gw)
	defer srv.Close()
	show(http.Get(srv.URL + "/nope"))
	show(http.Get(srv.URL + "/api/v1/example/upper"))
	show(http.Post(srv.URL+"/api/v1/example/upper", "application/json", strings.NewReader(`{"msg":1}`)))
	// Output:
	// 404 nothing at GET /nope
	// 405 nothing at GET /api/v1/example/upper
	// 400 {"code":3,"message":"invalid request body: (line 1:8): invalid value for string field msg: 1","details":[]}
}

// A stream error handler hides the message of an error that ends a
// stream after its first message.
func ExampleWithStreamErrorHandler() {
	failAfter := func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		if err := h(srv, ss); err != nil {
			return err
		}
		return status.Error(codes.Internal, "disk /dev/sda1 failed")
	}
	gw := protorest.NewGateway(
		protorest.WithStreamInterceptors(failAfter),
		protorest.WithStreamErrorHandler(func(_ *http.Request, err error) *status.Status {
			if status.Code(err) == codes.Internal {
				return status.New(codes.Internal, "internal error")
			}
			return nil
		}),
	)
	examplev1.RegisterMySvcServer(gw, services.NewMySvc())

	srv := httptest.NewServer(gw)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/api/v1/example/watch?count=1")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	lines := strings.SplitAfter(strings.TrimSpace(string(body)), "\n")
	fmt.Println(lines[len(lines)-1])
	// Output:
	// {"error":{"code":13,"message":"internal error","details":[]}}
}

// A health endpoint checks a grpc.health.v1 service over HTTP, as
// grpc-gateway's WithHealthzEndpoint does.
func ExampleWithHealthEndpoint() {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	backend := grpc.NewServer()
	hs := health.NewServer()
	hs.SetServingStatus("example.v1.MySvc", healthpb.HealthCheckResponse_NOT_SERVING)
	healthpb.RegisterHealthServer(backend, hs)
	go backend.Serve(lis)
	defer backend.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()

	gw := protorest.NewGateway(protorest.WithHealthEndpoint("/healthz", healthpb.NewHealthClient(conn)))
	srv := httptest.NewServer(gw)
	defer srv.Close()
	show(http.Get(srv.URL + "/healthz"))
	show(http.Get(srv.URL + "/healthz?service=example.v1.MySvc"))
	// Output:
	// 200 {"status":"SERVING"}
	// 503 {"code":14,"message":"NOT_SERVING","details":[]}
}
