package protorest_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/reflection"

	"github.com/protorest/protorest"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	"github.com/protorest/protorest/examples/services"
)

// testService has no google.api.http rules at all.
type testService struct {
	testgrpc.UnimplementedTestServiceServer
}

func (testService) UnaryCall(_ context.Context, req *testgrpc.SimpleRequest) (*testgrpc.SimpleResponse, error) {
	return &testgrpc.SimpleResponse{Payload: req.GetPayload(), Username: "auto"}, nil
}

func TestAutoMapping(t *testing.T) {
	t.Parallel()
	backend := grpc.NewServer()
	testgrpc.RegisterTestServiceServer(backend, testService{})
	examplev1.RegisterMySvcServer(backend, services.NewMySvc())
	reflection.Register(backend)
	addr := serveGRPC(t, backend)

	inProcess := protorest.NewGateway(protorest.WithAutoMapping())
	testgrpc.RegisterTestServiceServer(inProcess, testService{})
	examplev1.RegisterMySvcServer(inProcess, services.NewMySvc())

	remote := protorest.NewGateway(protorest.WithAutoMapping())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := remote.RegisterRemote(ctx, dial(t, addr)); err != nil {
		t.Fatal(err)
	}

	for name, gw := range map[string]*protorest.Gateway{"in-process": inProcess, "remote": remote} {
		srv := httptest.NewServer(gw)
		t.Cleanup(srv.Close)
		resp, body := send(t, "POST", srv.URL+"/grpc.testing.TestService/UnaryCall", `{"payload":{"body":"aGk="}}`)
		if resp.StatusCode != 200 || !strings.Contains(body, `"body":"aGk="`) || !strings.Contains(body, `"username":"auto"`) {
			t.Errorf("%s: unbound method: %d %s", name, resp.StatusCode, body)
		}
		// A method with a rule keeps only its rule.
		if resp, _ := send(t, "POST", srv.URL+"/example.v1.MySvc/Upper", `{"msg":"x"}`); resp.StatusCode != 404 {
			t.Errorf("%s: annotated method under its auto route: %d, want 404", name, resp.StatusCode)
		}
		if resp, body := send(t, "POST", srv.URL+"/api/v1/example/upper", `{"msg":"x"}`); resp.StatusCode != 200 || body != `{"msg":"X"}` {
			t.Errorf("%s: annotated method: %d %s", name, resp.StatusCode, body)
		}
		if resp, _ := send(t, "GET", srv.URL+"/grpc.testing.TestService/UnaryCall", ""); resp.StatusCode != 405 {
			t.Errorf("%s: GET of an auto route: %d, want 405", name, resp.StatusCode)
		}
		if resp, body := send(t, "POST", srv.URL+"/grpc.testing.TestService/EmptyCall", `{}`); resp.StatusCode != 501 {
			t.Errorf("%s: unimplemented method: %d %s", name, resp.StatusCode, body)
		}
	}

	// Without the option, unbound methods have no route.
	plain := protorest.NewGateway()
	testgrpc.RegisterTestServiceServer(plain, testService{})
	if r := do(t, plain, "POST", "/grpc.testing.TestService/UnaryCall", `{}`); r.code != 404 {
		t.Errorf("without auto-mapping: %d, want 404", r.code)
	}
}
