package protorest_test

import (
	"context"
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// TestProtocolsCallInfo: a call at a canonical path is recorded as REST
// calls are: r.Pattern is the canonical path, the CallInfo's Route names
// the method and the protocol, with the outcome and the messages; the
// method's context has the same Route.
func TestProtocolsCallInfo(t *testing.T) {
	var inMethod *protorest.Route
	gw := protorest.NewGateway(protorest.WithUnaryInterceptors(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		inMethod, _ = protorest.RouteFromContext(ctx)
		return h(ctx, req)
	}))
	confv1.RegisterProbesServer(gw, metadataProbes{newStreamer()})
	type served struct {
		info    *protorest.CallInfo
		pattern string
	}
	calls := make(chan served, 1)
	srv := h2cServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ci := new(protorest.CallInfo)
		r = r.WithContext(protorest.NewCallInfoContext(r.Context(), ci))
		gw.ServeHTTP(w, r)
		calls <- served{ci, r.Pattern}
	}))
	for _, tc := range []struct {
		client   string
		protocol string
	}{{"connect+json/http1", "connect"}, {"grpc-web+proto/http1", "grpc_web"}, {"grpc+proto/h2c", "grpc"}} {
		t.Run(tc.client, func(t *testing.T) {
			client := probesClient(srv.URL, "GetProbe", protocolClients()[tc.client])
			if _, err := client.CallUnary(context.Background(), connect.NewRequest(&confv1.Probe{Name: "x"})); err != nil {
				t.Fatal(err)
			}
			got := <-calls
			info, pattern := got.info, got.pattern
			rt := info.Route
			if pattern != "/conf.v1.Probes/GetProbe" || rt == nil || rt.FullMethod != "/conf.v1.Probes/GetProbe" || rt.Protocol != tc.protocol {
				t.Fatalf("pattern %q, route %+v", pattern, rt)
			}
			if info.Code != codes.OK || info.MessagesReceived != 1 || info.MessagesSent != 1 {
				t.Errorf("call info %+v", info)
			}
			if inMethod == nil || inMethod.Protocol != tc.protocol {
				t.Errorf("the method's route %+v", inMethod)
			}
			if _, err := client.CallUnary(context.Background(), connect.NewRequest(&confv1.Probe{Name: "denied"})); err == nil {
				t.Fatal("denied: no error")
			}
			if info = (<-calls).info; info.Code != codes.PermissionDenied {
				t.Errorf("denied: code %v", info.Code)
			}
		})
	}
	// Refused before the method is called: a compressed message without
	// an encoding.
	resp, _ := send(t, http.MethodPost, srv.URL+"/conf.v1.Probes/GetProbe", string(envelope(1, []byte("x"))),
		"Content-Type", "application/grpc-web+proto")
	got := <-calls
	if resp.Header.Get("Grpc-Status") != "13" || got.info.Code != codes.Internal || got.info.Route == nil || got.info.Route.Protocol != "grpc_web" {
		t.Errorf("refused: %v, call info %+v", resp.Header, got.info)
	}
	// A Connect stream refused so: its outcome is its end message's code,
	// not UNKNOWN (the answer is 200 with no grpc-status).
	resp, body := send(t, http.MethodPost, srv.URL+"/conf.v1.Probes/Watch", string(envelope(1, []byte("x"))),
		"Content-Type", "application/connect+proto")
	got = <-calls
	if resp.StatusCode != http.StatusOK || got.info.Code != codes.Internal || got.info.Route == nil || got.info.Route.Protocol != "connect" {
		t.Errorf("refused Connect stream: %d %q, call info %+v", resp.StatusCode, body, got.info)
	}
}
