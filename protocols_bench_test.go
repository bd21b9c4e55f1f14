package protorest_test

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"testing"

	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// BenchmarkProtocolsUnary measures a unary call of conf.v1.Probes.GetProbe
// through the gateway's handler (no network to the client), in-process
// and through a real gRPC backend, over each protocol at the canonical
// path, beside REST's GET of the same method.
func BenchmarkProtocolsUnary(b *testing.B) {
	msg := []byte(mustMarshal(&confv1.Probe{Name: "abc", I32: 5, Tags: []string{"a", "b"}, Inner: &confv1.Inner{S: "x"}}))
	const js = `{"name":"abc","i32":5,"tags":["a","b"],"inner":{"s":"x"}}`
	cases := []struct {
		name, method, target string
		body                 []byte
		headers              []string
	}{
		{"rest/get", "GET", "/v1/probes/abc?i32=5&tags=a&tags=b&inner.s=x", nil, nil},
		{"connect/json", "POST", "/conf.v1.Probes/GetProbe", []byte(js), []string{"Content-Type", "application/json", "Connect-Protocol-Version", "1"}},
		{"connect/proto", "POST", "/conf.v1.Probes/GetProbe", msg, []string{"Content-Type", "application/proto", "Connect-Protocol-Version", "1"}},
		{"grpc-web/proto", "POST", "/conf.v1.Probes/GetProbe", envelope(0, msg), []string{"Content-Type", "application/grpc-web+proto"}},
		{"grpc-web-text/proto", "POST", "/conf.v1.Probes/GetProbe", []byte(base64.StdEncoding.EncodeToString(envelope(0, msg))), []string{"Content-Type", "application/grpc-web-text"}},
		{"grpc/proto", "POST", "/conf.v1.Probes/GetProbe", envelope(0, msg), []string{"Content-Type", "application/grpc", "Te", "trailers"}},
	}
	for _, kind := range []string{"in-process", "remote"} {
		gw := probesGateway(b, kind, metadataProbes{newStreamer()})
		for _, c := range cases {
			b.Run(kind+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					req := httptest.NewRequest(c.method, c.target, bytes.NewReader(c.body))
					if c.body == nil {
						req.Body = http.NoBody
					}
					for i := 0; i+1 < len(c.headers); i += 2 {
						req.Header.Set(c.headers[i], c.headers[i+1])
					}
					w := httptest.NewRecorder()
					gw.ServeHTTP(w, req)
					if w.Code != http.StatusOK {
						b.Fatalf("status %d: %s", w.Code, w.Body)
					}
				}
			})
		}
	}
}
