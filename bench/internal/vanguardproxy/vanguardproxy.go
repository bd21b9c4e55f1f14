// Package vanguardproxy is vanguard-go (connectrpc.com/vanguard) as a
// REST gateway in front of a gRPC backend, set up as its README proxies
// to a remote gRPC server: a Transcoder for the Library service whose
// handler is an httputil.ReverseProxy to the backend over h2c, sending
// gRPC with the proto codec. One of the throughput harness's contenders.
//
// vanguard serves a REST server stream only when its response is
// google.api.HttpBody, so it does not serve the harness's stream route.
package vanguardproxy

import (
	"net/http"
	"net/http/httputil"
	"net/url"

	"connectrpc.com/vanguard"

	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// New returns vanguard's handler of the Library's REST routes, calling
// the gRPC backend at addr (host:port) in plaintext HTTP/2.
func New(addr string) (http.Handler, error) {
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: addr})
	var h2c http.Protocols
	h2c.SetUnencryptedHTTP2(true)
	proxy.Transport = &http.Transport{Protocols: &h2c}
	proxy.FlushInterval = -1 // each message as it comes
	svc := vanguard.NewService(libraryv1.Library_ServiceDesc.ServiceName, proxy,
		vanguard.WithTargetProtocols(vanguard.ProtocolGRPC),
		vanguard.WithTargetCodecs(vanguard.CodecProto))
	return vanguard.NewTranscoder([]*vanguard.Service{svc})
}
