package protorest_test

import (
	"net/http"
	"testing"

	"connectrpc.com/connect"

	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// connectProtocols are the ways a connect-go client calls a method over
// HTTP/1.1: Connect and gRPC-Web, each in binary and in JSON.
var connectProtocols = map[string][]connect.ClientOption{
	"connect+proto":  nil,
	"connect+json":   {connect.WithProtoJSON()},
	"grpc-web+proto": {connect.WithGRPCWeb()},
	"grpc-web+json":  {connect.WithGRPCWeb(), connect.WithProtoJSON()},
}

// A protocolClient is a connect-go client's protocol and transport.
type protocolClient struct {
	http *http.Client
	opts []connect.ClientOption
	h2   bool // HTTP/2: bidirectional streams work
}

// protocolClients are connectProtocols over HTTP/1.1 and HTTP/2 (h2c),
// and gRPC over HTTP/2, by name.
func protocolClients() map[string]protocolClient {
	out := map[string]protocolClient{}
	for name, opts := range connectProtocols {
		out[name+"/http1"] = protocolClient{http: http.DefaultClient, opts: opts}
		out[name+"/h2c"] = protocolClient{http: h2cClient(), opts: opts, h2: true}
	}
	out["grpc+proto/h2c"] = protocolClient{http: h2cClient(), opts: []connect.ClientOption{connect.WithGRPC()}, h2: true}
	out["grpc+json/h2c"] = protocolClient{http: h2cClient(), opts: []connect.ClientOption{connect.WithGRPC(), connect.WithProtoJSON()}, h2: true}
	return out
}

// h2cClient speaks HTTP/2 with prior knowledge only.
func h2cClient() *http.Client {
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: tr}
}

// probesClient is a connect-go client of conf.v1.Probes's method at base.
func probesClient(base, method string, p protocolClient) *connect.Client[confv1.Probe, confv1.Probe] {
	return connect.NewClient[confv1.Probe, confv1.Probe](p.http, base+"/conf.v1.Probes/"+method, p.opts...)
}

// protocolGateways serves a streamer as conf.v1.Probes in-process and
// through a real gRPC backend (each its own), over HTTP/1.1 and h2c, and
// returns their URLs by kind.
func protocolGateways(t *testing.T) map[string]string {
	t.Helper()
	urls := map[string]string{}
	for _, kind := range []string{"in-process", "remote"} {
		urls[kind] = h2cServer(t, probesGateway(t, kind, metadataProbes{newStreamer()})).URL
	}
	return urls
}
