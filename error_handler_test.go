package protorest_test

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest"
)

// TestRoutingErrorHandler: requests no route matches (404, 405 with its
// Allow header) go to the routing error handler; errors of a matched
// route do not.
func TestRoutingErrorHandler(t *testing.T) {
	t.Parallel()
	routing := func(w http.ResponseWriter, r *http.Request, err error) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(protorest.HTTPStatus(err))
		fmt.Fprintf(w, "no route for %s %s (%s)", r.Method, r.URL.Path, status.Code(err))
	}
	urls := optionGateways(t, protorest.WithRoutingErrorHandler(routing))
	for _, kind := range slices.Sorted(maps.Keys(urls)) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			for _, tt := range []struct {
				method, path string
				code         int
				body, allow  string
			}{
				{"GET", "/v1/nowhere", 404, "no route for GET /v1/nowhere (NotFound)", ""},
				{"DELETE", "/v1/probes", 405, "no route for DELETE /v1/probes (Unimplemented)", "GET, POST"},
				{"GET", "/v1/probes/denied", 403, `{"code":7,"message":"no","details":[]}`, ""},
			} {
				got := fetch(t, tt.method, urls[kind]+tt.path, "")
				if got.code != tt.code || got.body != tt.body || got.header.Get("Allow") != tt.allow {
					t.Errorf("%s %s: %d %q Allow %q\nwant %d %q Allow %q", tt.method, tt.path, got.code, got.body, got.header.Get("Allow"), tt.code, tt.body, tt.allow)
				}
			}
		})
	}
}

// TestStreamErrorHandler: the handler's status replaces an error that
// ends a started stream, in-band, in the trailers and in a WebSocket's
// close frame; an error before the stream starts is an ordinary error
// response with the handler's status; the gateway's own errors with an
// HTTP status of their own (a limit) never reach it.
func TestStreamErrorHandler(t *testing.T) {
	t.Parallel()
	hide := func(r *http.Request, err error) *status.Status {
		switch status.Code(err) {
		case codes.Internal:
			return status.New(codes.Internal, "internal error on "+r.URL.Path)
		case codes.NotFound:
			return nil // the error's own
		}
		return status.New(codes.Unknown, "the handler saw "+status.Code(err).String())
	}
	urls, _ := streamGateways(t, protorest.WithStreamErrorHandler(hide), protorest.WithMaxMetadataBytes(1000))
	for _, kind := range slices.Sorted(maps.Keys(urls)) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			base := urls[kind]
			got := fetch(t, "GET", base+"/v1/watch/fail-after?i32=1", "")
			want := `{"result":{"name":"fail-after-1","i32":1}}` + "\n" + `{"error":{"code":13,"message":"internal error on /v1/watch/fail-after","details":[]}}` + "\n"
			if got.code != 200 || got.body != want {
				t.Errorf("in-band: %d %s\nwant 200 %s", got.code, got.body, want)
			}
			got = fetch(t, "GET", base+"/v1/watch/fail-after?i32=1", "", "TE", "trailers", "Accept", "application/x-ndjson")
			if m := got.trailer.Get("Grpc-Message"); m != "internal error on /v1/watch/fail-after" {
				t.Errorf("Grpc-Message trailer %q", m)
			}
			got = fetch(t, "GET", base+"/v1/watch/fail-before", "")
			if want := `{"code":5,"message":"no such watch","details":[{"@type":"type.googleapis.com/google.rpc.ResourceInfo","resourceName":"fail-before"}]}`; got.code != 404 || got.body != want {
				t.Errorf("before the start: %d %s\nwant 404 %s", got.code, got.body, want)
			}

			got = fetch(t, "GET", base+"/v1/watch/big?i32=1", "", "Grpc-Metadata-X", strings.Repeat("x", 1200))
			if got.code != http.StatusRequestHeaderFieldsTooLarge {
				t.Errorf("metadata over the limit: %d %s, want 431", got.code, got.body)
			}
			got = fetch(t, "GET", base+"/v1/watch/w?i32=1", "", "Grpc-Timeout", "bogus")
			if want := `{"code":2,"message":"the handler saw InvalidArgument","details":[]}`; got.code != 500 || got.body != want {
				t.Errorf("an error before the start: %d %s\nwant 500 %s", got.code, got.body, want)
			}

			c := wsDial(t, base+"/v1/watch/fail-after?i32=1", nil)
			if _, _, err := wsRead(t, c); err != nil {
				t.Fatal(err)
			}
			wsClosed(t, c, 4000+13, "internal error on /v1/watch/fail-after")
			c = wsDial(t, base+"/v1/watch/big?i32=1", http.Header{"Grpc-Metadata-X": {strings.Repeat("x", 1200)}})
			wsClosed(t, c, 4000+8, "request metadata larger than the limit of 1000 bytes")
		})
	}
}
