package ws

import (
	"net/http/httptest"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestCheckOrigin(t *testing.T) {
	t.Parallel()
	patterns := []string{"*.Example.com", "https://app.example.org"}
	tests := []struct {
		name, host, origin string
		ok                 bool
	}{
		{"no Origin: not a browser", "api.example.net", "", true},
		{"the request's own host", "api.example.net", "https://api.example.net", true},
		{"own host, other case and scheme", "API.example.net:8080", "http://api.EXAMPLE.net:8080", true},
		{"own host, other port", "api.example.net:8080", "https://api.example.net", false},
		{"a host pattern, any scheme", "api.example.net", "http://www.example.com", true},
		{"a host pattern, case ignored", "api.example.net", "https://WWW.EXAMPLE.COM", true},
		{"a scheme://host pattern", "api.example.net", "https://app.example.org", true},
		{"the scheme://host pattern, another scheme", "api.example.net", "http://app.example.org", false},
		{"another site", "api.example.net", "https://evil.example", false},
		{"a suffix is not a subdomain", "api.example.net", "https://evilexample.com", false},
		{"null", "api.example.net", "null", false},
		{"not a URL", "api.example.net", "%zz", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/v1/chat", nil)
			r.Host = tt.host
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			err := checkOrigin(r, patterns)
			if tt.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if status.Code(err) != codes.PermissionDenied {
				t.Fatalf("error %v, want PERMISSION_DENIED", err)
			}
		})
	}
	r := httptest.NewRequest("GET", "/v1/chat", nil)
	r.Host = "api.example.net"
	r.Header.Set("Origin", "https://www.example.com")
	if err := checkOrigin(r, nil); status.Code(err) != codes.PermissionDenied {
		t.Errorf("another origin without patterns: %v", err)
	}
}
