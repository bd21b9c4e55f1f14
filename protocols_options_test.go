package protorest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// TestWithoutProtocols: a protocol turned off is not served at the
// canonical paths (its calls are REST requests, which find no route
// there), the others still are. (A protocol that is none is one of
// TestOptionMistakes's.)
func TestWithoutProtocols(t *testing.T) {
	gw := protorest.NewGateway(protorest.WithoutProtocols(protorest.ProtocolConnect, protorest.ProtocolGRPC))
	confv1.RegisterProbesServer(gw, metadataProbes{newStreamer()})
	srv := h2cServer(t, gw)
	for name, p := range protocolClients() {
		t.Run(name, func(t *testing.T) {
			_, err := probesClient(srv.URL, "GetProbe", p).CallUnary(context.Background(), connect.NewRequest(&confv1.Probe{Name: "x"}))
			web := strings.HasPrefix(name, "grpc-web")
			var ce *connect.Error
			switch {
			case web && err != nil:
				t.Errorf("gRPC-Web is on: %v", err)
			case !web && (!errors.As(err, &ce)):
				t.Errorf("%s is off: %v", name, err)
			}
		})
	}
	resp, body := send(t, http.MethodPost, srv.URL+"/conf.v1.Probes/GetProbe", `{"name":"x"}`,
		"Content-Type", "application/json", "Connect-Protocol-Version", "1")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("Connect off: %d %s, want REST's 404", resp.StatusCode, body)
	}
}
