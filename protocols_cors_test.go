package protorest_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// TestProtocolsCORS: a browser's preflight of a Connect or gRPC-Web call
// to a method's canonical path (which has no REST route) is answered
// with POST and the protocols' request headers; the call itself may be
// read by the page, its status headers exposed.
func TestProtocolsCORS(t *testing.T) {
	gw := protorest.NewGateway(protorest.WithCORS(protorest.CORS{AllowedOrigins: []string{"https://app.example.com"}}))
	confv1.RegisterProbesServer(gw, metadataProbes{newStreamer()})
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)

	const requested = "content-type, connect-protocol-version, connect-timeout-ms, x-grpc-web, x-user-agent, grpc-timeout"
	resp, _ := send(t, http.MethodOptions, srv.URL+"/conf.v1.Probes/GetProbe", "",
		"Origin", "https://app.example.com", "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", requested)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("preflight: %d", resp.StatusCode)
	}
	if got := resp.Header.Get("Access-Control-Allow-Methods"); got != "POST" {
		t.Errorf("Allow-Methods %q", got)
	}
	if got := resp.Header.Get("Access-Control-Allow-Headers"); got != requested {
		t.Errorf("Allow-Headers %q, want %q", got, requested)
	}

	body := envelope(0, []byte(mustMarshal(&confv1.Probe{Name: "denied"})))
	resp, _ = send(t, http.MethodPost, srv.URL+"/conf.v1.Probes/GetProbe", string(body),
		"Origin", "https://app.example.com", "Content-Type", "application/grpc-web+proto", "X-Grpc-Web", "1")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		t.Fatalf("call: %d, Allow-Origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	exposed := resp.Header.Get("Access-Control-Expose-Headers")
	for _, h := range []string{"Grpc-Status", "Grpc-Message", "Grpc-Status-Details-Bin"} {
		if !strings.Contains(exposed, h) {
			t.Errorf("Expose-Headers %q lacks %s", exposed, h)
		}
	}
}
