package protocols

import (
	"net/http/httptest"
	"testing"
)

// TestOf tells each request's protocol as connect-go would serve it (or
// refuse it: a wrong HTTP method, an unknown codec).
func TestOf(t *testing.T) {
	for _, tt := range []struct {
		method, target, contentType string
		connectVersion              bool
		want                        Protocol
		sure                        bool
	}{
		{"POST", "/p.S/M", "application/grpc", false, GRPC, true},
		{"POST", "/p.S/M", "application/grpc+proto", false, GRPC, true},
		{"POST", "/p.S/M", "application/GRPC+json; charset=utf-8", false, GRPC, true},
		{"POST", "/p.S/M", "application/grpc+foo", false, GRPC, true},
		{"POST", "/p.S/M", "application/grpc-web", false, GRPCWeb, true},
		{"POST", "/p.S/M", "application/grpc-web+json", false, GRPCWeb, true},
		{"POST", "/p.S/M", "application/grpc-web-text", false, GRPCWebText, true},
		{"POST", "/p.S/M", "application/grpc-web-text+proto", false, GRPCWebText, true},
		{"POST", "/p.S/M", "application/grpcweb", false, None, false},
		{"POST", "/p.S/M", "application/connect+proto", false, Connect, true},
		{"POST", "/p.S/M", "application/json", true, Connect, true},
		{"POST", "/p.S/M", "application/json", false, Connect, false},
		{"POST", "/p.S/M", "application/proto", false, Connect, false},
		{"POST", "/p.S/M", "application/x-protobuf", true, Connect, true},
		{"POST", "/p.S/M", "application/foo", true, Connect, true},
		{"POST", "/p.S/M", "text/plain", false, None, false},
		{"POST", "/p.S/M", "", false, None, false},
		{"PUT", "/p.S/M", "application/grpc", false, GRPC, true},
		{"DELETE", "/p.S/M", "application/proto", true, Connect, true},
		{"DELETE", "/p.S/M", "application/json", false, None, false},
		{"GET", "/p.S/M?connect=v1&encoding=json&message={}", "", false, Connect, true},
		{"GET", "/p.S/M?encoding=json&message={}&connect=v1", "", false, Connect, true},
		{"GET", "/p.S/M?encoding=json&message={}", "", false, None, false},
		{"GET", "/p.S/M?xconnect=v1", "", false, None, false},
	} {
		r := httptest.NewRequest(tt.method, tt.target, nil)
		if tt.contentType != "" {
			r.Header.Set("Content-Type", tt.contentType)
		}
		if tt.connectVersion {
			r.Header.Set("Connect-Protocol-Version", "1")
		}
		if got, sure := Of(r); got != tt.want || sure != tt.sure {
			t.Errorf("%s %s %q (version %v): %v %v, want %v %v", tt.method, tt.target, tt.contentType, tt.connectVersion, got, sure, tt.want, tt.sure)
		}
	}
}
