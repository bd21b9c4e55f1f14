package gateway

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/remote"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// TestNewDerives: what every request reads comes from the Config, once.
func TestNewDerives(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Limits.MaxBody, cfg.Limits.MaxJSONDepth, cfg.Limits.MaxURLBytes = 10, 7, 99
	cfg.Response.MaxBytes, cfg.Response.MaxBuffered = 20, 0
	cfg.Headers.DefaultTimeout = time.Second
	cfg.WebSocketOrigins = []string{"*.example.com"}
	g := New(&cfg)
	if g.Err() != nil {
		t.Fatal(g.Err())
	}
	e := &g.env
	if e.MaxBody != 10 || e.MaxURLBytes != 99 || e.Render.MaxBody != 20 || e.Headers.DefaultTimeout != time.Second || e.WebSocketOrigins[0] != "*.example.com" {
		t.Errorf("env %+v", e)
	}
	if e.Render.Budget != nil {
		t.Error("a budget with MaxBuffered 0")
	}
	if e.Render.Headers != &e.Headers || e.PanicHook == nil || e.Render.ErrorHandler == nil || e.Formats == nil {
		t.Error("the env's derived parts are missing")
	}
	if g.json.MaxDepth != 7 || g.json.MaxBytes != 20 || g.json.MarshalOptions.Resolver == nil || cfg.Binding.JSON != g.json {
		t.Errorf("JSON codec %+v", g.json)
	}
	if !cfg.OpenAPI.JSON.EmitUnpopulated {
		t.Error("the OpenAPI document does not write JSON as the gateway does")
	}
	if g2 := New(func() *config.Config { c := config.Default(); return &c }()); g2.env.Render.Budget == nil {
		t.Error("no budget by default")
	}
}

// recorder records what the gateway tells it (exchange.Recorder).
type recorder struct {
	route    *exchange.Route
	err      error
	ended    int
	sent     int
	received int
}

func (r *recorder) Routed(rt *exchange.Route) { r.route = rt }
func (r *recorder) Sent()                     { r.sent++ }
func (r *recorder) Received(n int)            { r.received = n }
func (r *recorder) Ended(err error)           { r.err = err; r.ended++ }

// TestRouter: the router serves a method (here its Unimplemented
// answer), a custom route with its path values and r.Pattern, 405 with
// Allow and 404; a Recorder in the context is told the route and the
// outcome.
func TestRouter(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	g := New(&cfg)
	if err := g.RegisterService(&confv1.Probes_ServiceDesc, confv1.UnimplementedProbesServer{}); err != nil {
		t.Fatal(err)
	}
	if err := g.HandlePath("GET", "/files/{path=**}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Pattern+" "+r.PathValue("path"))
	}), "", ""); err != nil {
		t.Fatal(err)
	}
	var rec *recorder
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec = &recorder{}
		g.ServeHTTP(w, r.WithContext(exchange.NewRecorderContext(r.Context(), rec)))
	}))
	defer srv.Close()
	for _, tt := range []struct {
		method, path string
		code         int
		body, allow  string
		pattern      string
		outcome      codes.Code
	}{
		{"GET", "/v1/probes/a", 501, `"code":12`, "", "GET /v1/probes/{name}", codes.Unimplemented},
		{"GET", "/files/a/b%20c", 200, "/files/{path=**} a/b c", "", "GET /files/{path=**}", codes.OK},
		{"PUT", "/v1/probes", 405, `"code":12`, "POST", "", codes.Unimplemented},
		{"GET", "/nowhere", 404, `"code":5`, "", "", codes.NotFound},
	} {
		req, _ := http.NewRequest(tt.method, srv.URL+tt.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.code || !strings.Contains(string(body), tt.body) || !strings.Contains(resp.Header.Get("Allow"), tt.allow) {
			t.Errorf("%s %s: %d %v %s", tt.method, tt.path, resp.StatusCode, resp.Header, body)
		}
		pattern := ""
		if rec.route != nil {
			pattern = rec.route.Pattern
		}
		if pattern != tt.pattern || status.Code(rec.err) != tt.outcome {
			t.Errorf("%s %s: recorded %q %v", tt.method, tt.path, pattern, rec.err)
		}
	}
}

// TestMisconfigured: the options' mistakes make every use fail with
// them, and every request a 500.
func TestMisconfigured(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	mistake := errors.New("protorest: WithX(1): bad")
	cfg.Errs = append(cfg.Errs, mistake)
	var reported []error
	cfg.Errors.PanicHook = func(method string, v any, _ []byte) { reported = append(reported, v.(error)) }
	g := New(&cfg)
	if !errors.Is(g.Err(), mistake) {
		t.Fatalf("Err() = %v", g.Err())
	}
	for name, err := range map[string]error{
		"RegisterService": g.RegisterService(&confv1.Probes_ServiceDesc, confv1.UnimplementedProbesServer{}),
		"HandlePath":      g.HandlePath("GET", "/x", http.NotFoundHandler(), "", ""),
		"RegisterRemote":  g.RegisterRemote(context.Background(), nil, remote.Options{}),
	} {
		if !errors.Is(err, mistake) {
			t.Errorf("%s: %v", name, err)
		}
	}
	srv := httptest.NewServer(g)
	defer srv.Close()
	for range 2 {
		resp, err := http.Get(srv.URL + "/x")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 500 || strings.Contains(string(body), "WithX") {
			t.Errorf("%d %s", resp.StatusCode, body)
		}
	}
	if len(reported) != 1 || !errors.Is(reported[0], mistake) {
		t.Errorf("reported %v", reported)
	}
}
