package headers

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"google.golang.org/grpc/metadata"
)

// TestMetadataLimitAtItsSize: the limit counts the metadata as Size does,
// whatever it came from (headers, the trace context, the forwarded keys,
// an annotator): metadata of exactly the limit passes, one byte more is
// 431.
func TestMetadataLimitAtItsSize(t *testing.T) {
	r := httptest.NewRequest("GET", "http://api.example/v1/shelves/1", nil)
	r.Header.Set("Authorization", "Bearer abc")
	r.Header.Set("Grpc-Metadata-X-Tenant", "t1")
	r.Header.Add("Grpc-Metadata-X-Tenant", "t2")
	r.Header.Set("Accept", "application/json")
	r.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	r.Header.Set("X-Forwarded-For", "203.0.113.7")
	p := &Policy{Annotators: []func(*http.Request) metadata.MD{
		func(*http.Request) metadata.MD { return metadata.Pairs("x-session", "s1", "x-session", "s2") },
	}}
	md, err := p.Metadata(r)
	if err != nil {
		t.Fatal(err)
	}
	n := Size(md)
	p.MaxMetadataBytes = n
	if _, err := p.Metadata(r); err != nil {
		t.Errorf("metadata of %d bytes, limit %d: %v", n, n, err)
	}
	p.MaxMetadataBytes = n - 1
	if _, err := p.Metadata(r); err == nil {
		t.Errorf("metadata of %d bytes, limit %d: no error", n, n-1)
	}
}
