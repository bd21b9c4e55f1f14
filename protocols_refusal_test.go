package protorest_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// TestProtocolsClassCap: a call over its class's cap is refused in its
// protocol's terms (UNAVAILABLE, with Retry-After), the method not
// called: a server stream holds the one place of its class.
func TestProtocolsClassCap(t *testing.T) {
	s := newStreamer()
	gw := protorest.NewGateway(protorest.WithConcurrencyLimits(protorest.ConcurrencyLimits{ServerStreams: 1}))
	confv1.RegisterProbesServer(gw, metadataProbes{s})
	srv := h2cServer(t, gw)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	holder, err := probesClient(srv.URL, "Watch", protocolClients()["connect+proto/h2c"]).CallServerStream(ctx, connect.NewRequest(&confv1.Probe{Flag: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	<-s.started
	for name, p := range protocolClients() {
		t.Run(name, func(t *testing.T) {
			stream, err := probesClient(srv.URL, "Watch", p).CallServerStream(context.Background(), connect.NewRequest(&confv1.Probe{Name: "w", I32: 1}))
			if err == nil {
				for stream.Receive() {
					t.Errorf("message %v", stream.Msg())
				}
				err = stream.Err()
				stream.Close()
			}
			var ce *connect.Error
			if !errors.As(err, &ce) || ce.Code() != connect.CodeUnavailable {
				t.Errorf("%v, want unavailable", err)
			}
		})
	}
	resp, _ := send(t, http.MethodPost, srv.URL+"/conf.v1.Probes/Watch", string(envelope(0, nil)), "Content-Type", "application/grpc-web+proto")
	if resp.Header.Get("Grpc-Status") != "14" || resp.Header.Get("Retry-After") == "" {
		t.Errorf("gRPC-Web refusal: %d %v", resp.StatusCode, resp.Header)
	}
}
