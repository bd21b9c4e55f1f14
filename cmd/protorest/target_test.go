package main

import (
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// TestCheckTarget: what grpc.NewClient can reach is accepted; a URL, a
// scheme grpc-go has no resolver for, and what its DNS resolver cannot
// parse are refused with the fix.
func TestCheckTarget(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{
		"localhost:50051", "app:50051", "127.0.0.1:50051", "[::1]:50051", "::1", "localhost",
		"unix:app.sock", "unix:///run/app.sock", "unix-abstract:app",
		"dns:///app:50051", "dns://8.8.8.8/app:50051", "dns:app:50051",
		"passthrough:///127.0.0.1:50051", "passthrough:///anything at all",
	} {
		if err := checkTarget(ok); err != nil {
			t.Errorf("checkTarget(%q): %v", ok, err)
		}
	}
	for _, tt := range []struct{ target, want string }{
		{"http://localhost:50051", "a URL, not a gRPC target: give --upstream localhost:50051"},
		{"http://localhost", "give --upstream localhost:80"},
		{"https://api.example.com", "give --upstream api.example.com:443 --upstream-tls"},
		{"https://api.example.com:8443/v1/", "a URL (a gRPC target has no path), not a gRPC target: give --upstream api.example.com:8443 --upstream-tls"},
		{"http://[::1]:50051", "give --upstream [::1]:50051"},
		{"grpc://app:50051", "give --upstream app:50051"},
		{"xds:///app", "grpc-go has no resolver for xds://"},
		{"http:app", "grpc-go has no resolver for http://"},
		{"localhost:1:2", `"localhost:1:2" is not host:port`},
		{"localhost:", "no port after the colon"},
		{"dns:///", "no host"},
		{"", "no host"},
		{"%zz", `"%zz" is not a gRPC target: invalid URL escape`},
	} {
		if err := checkTarget(tt.target); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("checkTarget(%q) = %v, want %q", tt.target, err, tt.want)
		}
	}
}

// FuzzCheckTarget: checkTarget never panics, and grpc.NewClient takes
// every target it accepts.
func FuzzCheckTarget(f *testing.F) {
	for _, s := range []string{
		"localhost:50051", "[::1]:50051", "unix:///run/app.sock", "dns://8.8.8.8/app:50051", "passthrough:///x",
		"http://localhost:50051", "https://a/b?c#d", "grpc://x", "xds:///app", "localhost:1:2", "%zz", "dns:%2F%2F",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		if checkTarget(target) != nil {
			return
		}
		conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatalf("checkTarget accepts %q, which grpc.NewClient refuses: %v", target, err)
		}
		conn.Close()
	})
}
