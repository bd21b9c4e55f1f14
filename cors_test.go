package protorest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/protorest/protorest"
)

// TestCORS: preflights are answered from the route table, before the 405
// logic and without calling a method; actual requests from an allowed
// origin carry the headers that let the page read them, with the
// response's gRPC metadata exposed; other origins get none.
func TestCORS(t *testing.T) {
	t.Parallel()
	const app = "https://app.example.com"
	team := func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		grpc.SetHeader(ctx, metadata.Pairs("team", "blue"))
		return h(ctx, req)
	}
	rec := &recorder{}
	gw := newFixture(t, "A", rec, protorest.WithUnaryInterceptors(team), protorest.WithCORS(protorest.CORS{
		AllowedOrigins: []string{app, "https://*.partner.example"},
	}))
	// The methods /v1/probes/abc serves, as a 405 lists them.
	wrong := do(t, gw, "POST", "/v1/probes/abc", "")
	methods := wrong.header.Get("Allow")
	if wrong.code != 405 || !strings.Contains(methods, "PATCH") {
		t.Fatalf("405 for POST /v1/probes/abc: %d, Allow %q", wrong.code, methods)
	}

	t.Run("preflight", func(t *testing.T) {
		for _, origin := range []string{app, "https://eu.partner.example"} {
			r := do(t, gw, "OPTIONS", "/v1/probes/abc", "", "Origin", origin,
				"Access-Control-Request-Method", "PATCH",
				"Access-Control-Request-Headers", "Content-Type, Grpc-Metadata-Team, X-Evil, traceparent")
			h := r.header
			if r.code != 204 || h.Get("Access-Control-Allow-Origin") != origin || h.Get("Access-Control-Allow-Methods") != methods ||
				h.Get("Access-Control-Allow-Headers") != "content-type, grpc-metadata-team, traceparent" ||
				h.Get("Access-Control-Max-Age") != "600" || !strings.Contains(h.Get("Vary"), "Origin") ||
				h.Get("Access-Control-Allow-Credentials") != "" {
				t.Errorf("%s: %d %v", origin, r.code, h)
			}
		}
		if rec.count() != 0 {
			t.Errorf("a preflight called the method %d times", rec.count())
		}
	})
	t.Run("preflight refused", func(t *testing.T) {
		for _, origin := range []string{"https://evil.example", "https://partner.example", "http://app.example.com"} {
			r := do(t, gw, "OPTIONS", "/v1/probes/abc", "", "Origin", origin, "Access-Control-Request-Method", "PATCH")
			if r.code != 403 || !strings.Contains(r.body, `"code":7`) || r.header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("%s: %d %v %s", origin, r.code, r.header, r.body)
			}
		}
		if r := do(t, gw, "OPTIONS", "/v1/nowhere", "", "Origin", app, "Access-Control-Request-Method", "GET"); r.code != 404 {
			t.Errorf("preflight of a path with no routes: %d", r.code)
		}
	})
	t.Run("actual", func(t *testing.T) {
		r := do(t, gw, "GET", "/v1/probes/abc", "", "Origin", app)
		h := r.header
		if r.code != 200 || h.Get("Access-Control-Allow-Origin") != app || h.Get("Grpc-Metadata-Team") != "blue" ||
			h.Get("Access-Control-Expose-Headers") != "Grpc-Status, Grpc-Message, Grpc-Status-Details-Bin, Grpc-Encoding, Grpc-Accept-Encoding, Connect-Content-Encoding, Connect-Accept-Encoding, Grpc-Metadata-Team" || h.Get("Vary") != "Origin" {
			t.Errorf("allowed origin: %d %v", r.code, h)
		}
		r = do(t, gw, "GET", "/v1/probes/abc", "", "Origin", "https://evil.example")
		if r.code != 200 || r.header.Get("Access-Control-Allow-Origin") != "" || r.header.Get("Access-Control-Expose-Headers") != "" {
			t.Errorf("other origin: %d %v", r.code, r.header)
		}
		r = do(t, gw, "GET", "/v1/probes/abc", "")
		if r.code != 200 || r.header.Get("Vary") != "Origin" || r.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("no origin: %d %v", r.code, r.header)
		}
	})
	t.Run("credentials", func(t *testing.T) {
		gw := newFixture(t, "A", &recorder{}, protorest.WithCORS(protorest.CORS{AllowedOrigins: []string{app}, AllowCredentials: true}))
		r := do(t, gw, "OPTIONS", "/v1/probes/abc", "", "Origin", app, "Access-Control-Request-Method", "GET")
		if r.code != 204 || r.header.Get("Access-Control-Allow-Credentials") != "true" {
			t.Errorf("preflight: %d %v", r.code, r.header)
		}
		r = do(t, gw, "GET", "/v1/probes/abc", "", "Origin", app)
		if r.header.Get("Access-Control-Allow-Credentials") != "true" {
			t.Errorf("actual: %d %v", r.code, r.header)
		}
	})
	t.Run("configuration errors", func(t *testing.T) {
		for _, c := range []protorest.CORS{
			{AllowedOrigins: []string{"*"}, AllowCredentials: true},
			{AllowedOrigins: []string{"app.example.com/x"}},
			{AllowedOrigins: []string{"https://[*.example"}},
		} {
			// The mistake is the gateway's first use's error, not a panic.
			err := protorest.NewGateway(protorest.WithCORS(c)).HandlePath("GET", "/x", func(http.ResponseWriter, *http.Request) {})
			if err == nil || !strings.Contains(err.Error(), "WithCORS") {
				t.Errorf("%+v: HandlePath: %v", c, err)
			}
		}
	})
}
