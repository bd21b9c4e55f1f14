package protorest_test

import (
	"net/http"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/protorest/protorest"
)

// TestRemoteBackendDialOptions: a gateway whose backend connection is
// dialed with BackendDialOptions (and so its codec, which keeps a
// response's bytes as they are) answers every request as one dialed
// without them: unary calls, errors with details, header and trailer
// metadata, a server stream, a binary response.
func TestRemoteBackendDialOptions(t *testing.T) {
	t.Parallel()
	be := startBackend(t, "tcp", "127.0.0.1:0")
	conn, err := grpc.NewClient(be.addr, append(protorest.BackendDialOptions(), grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	with, without := remoteGateway(t, conn), remoteGateway(t, dial(t, be.addr))
	for _, c := range []struct{ method, path, body, accept string }{
		{"POST", "/api/v1/example/upper", `{"msg":"hello"}`, ""},
		{"POST", "/api/v1/example/echo", `{"msg":"x","num":7}`, ""},
		{"GET", "/v1/books/", "", ""},
		{"GET", "/v1/shelves?page_size=1", "", ""},
		{"GET", "/v1/shelves?page_size=1", "", "application/proto"},
		{"GET", "/v1/shelves/no-such-shelf", "", ""},
		{"GET", "/api/v1/example/watch?count=3&intervalMs=1", "", ""},
	} {
		var got, want [2]string
		var gotResp, wantResp *http.Response
		for i, gw := range []string{with.URL, without.URL} {
			resp, body := send(t, c.method, gw+c.path, c.body, "Accept", c.accept, "Te", "trailers")
			r := [2]string{resp.Status, body}
			if i == 0 {
				got, gotResp = r, resp
			} else {
				want, wantResp = r, resp
			}
		}
		if got != want {
			t.Errorf("%s %s: with BackendDialOptions %q\nwithout %q", c.method, c.path, got, want)
		}
		for _, h := range []string{"Content-Type", "Grpc-Metadata-X-Library-Request-Id"} {
			if (gotResp.Header.Get(h) == "") != (wantResp.Header.Get(h) == "") {
				t.Errorf("%s %s: %s %q with BackendDialOptions, %q without", c.method, c.path, h, gotResp.Header.Get(h), wantResp.Header.Get(h))
			}
		}
		if g, w := gotResp.Trailer.Get("Grpc-Trailer-X-Backend-Trailer"), wantResp.Trailer.Get("Grpc-Trailer-X-Backend-Trailer"); g != w {
			t.Errorf("%s %s: trailer %q with BackendDialOptions, %q without", c.method, c.path, g, w)
		}
	}
}
