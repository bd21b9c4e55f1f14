package protorest_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// getProbesProto describes conf.v1.Probes.GetProbe as a method without
// side effects, as the gateway reads it (WithProtoFiles); the backend
// serves the generated service, whose wire form is the same.
const getProbesProto = `syntax = "proto3";
package conf.v1;
message Probe {
  string name = 1;
  repeated string tags = 10;
}
service Probes {
  rpc GetProbe(Probe) returns (Probe) {
    option idempotency_level = NO_SIDE_EFFECTS;
  }
  rpc CreateProbe(Probe) returns (Probe);
}
`

// TestProtocolsConnectGet: a method marked NO_SIDE_EFFECTS answers
// Connect's GET (connect-go's WithHTTPGet; and by hand, base64 and
// JSON); a method without the mark refuses GET.
func TestProtocolsConnectGet(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "probes.proto"), []byte(getProbesProto), 0o644); err != nil {
		t.Fatal(err)
	}
	backend := grpc.NewServer()
	confv1.RegisterProbesServer(backend, metadataProbes{newStreamer()})
	gw := protorest.NewGateway()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := gw.RegisterRemote(ctx, dial(t, serveGRPC(t, backend)), protorest.WithProtoFiles([]string{dir}, []string{"probes.proto"})); err != nil {
		t.Fatal(err)
	}
	srv := h2cServer(t, gw)

	for name, opts := range map[string][]connect.ClientOption{"proto": nil, "json": {connect.WithProtoJSON()}} {
		t.Run(name, func(t *testing.T) {
			client := connect.NewClient[confv1.Probe, confv1.Probe](http.DefaultClient, srv.URL+"/conf.v1.Probes/GetProbe",
				append(opts, connect.WithHTTPGet(), connect.WithIdempotency(connect.IdempotencyNoSideEffects))...)
			req := connect.NewRequest(&confv1.Probe{Name: "by-get"})
			resp, err := client.CallUnary(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if req.HTTPMethod() != http.MethodGet || resp.Msg.GetName() != "by-get" {
				t.Errorf("%s: %v", req.HTTPMethod(), resp.Msg)
			}
		})
	}

	msg, err := proto.Marshal(&confv1.Probe{Name: "raw"})
	if err != nil {
		t.Fatal(err)
	}
	resp, body := send(t, http.MethodGet, srv.URL+"/conf.v1.Probes/GetProbe?connect=v1&encoding=proto&base64=1&message="+base64.RawURLEncoding.EncodeToString(msg), "")
	var got confv1.Probe
	if resp.StatusCode != http.StatusOK || proto.Unmarshal([]byte(body), &got) != nil || got.GetName() != "raw" {
		t.Errorf("GET by hand: %d %q", resp.StatusCode, body)
	}
	resp, body = send(t, http.MethodGet, srv.URL+`/conf.v1.Probes/GetProbe?connect=v1&encoding=json&message={"name":"j"}`, "")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(body, `{"name":"j"`) {
		t.Errorf("GET of JSON: %d %q", resp.StatusCode, body)
	}
	resp, _ = send(t, http.MethodGet, srv.URL+"/conf.v1.Probes/CreateProbe?connect=v1&encoding=proto&base64=1&message=", "")
	if resp.StatusCode == http.StatusOK {
		t.Errorf("GET of a method with side effects: %d", resp.StatusCode)
	}
}
