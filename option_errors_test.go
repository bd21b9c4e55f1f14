package protorest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/protorest/protorest"
)

// TestOptionMistakes: an option given a bad value does not panic; the
// gateway reports the mistake, naming the option and the value, at its
// first use: RegisterService panics with it, RegisterRemote, HandlePath
// and HandleDocumentedPath return it, and every request gets 500
// INTERNAL with a generic message, the mistake going to the panic hook
// once.
func TestOptionMistakes(t *testing.T) {
	t.Parallel()
	health := healthpb.NewHealthClient(dial(t, "127.0.0.1:1"))
	for _, tt := range []struct {
		name string
		opt  func() protorest.Option // called under recover: it must not panic
		want []string
	}{
		{"WithCORS", func() protorest.Option {
			return protorest.WithCORS(protorest.CORS{AllowedOrigins: []string{"app.example.com/x"}})
		}, []string{"WithCORS", `"app.example.com/x"`}},
		{"WithCORS credentials", func() protorest.Option {
			return protorest.WithCORS(protorest.CORS{AllowedOrigins: []string{"*"}, AllowCredentials: true})
		}, []string{"WithCORS", "with credentials"}},
		{"WithSuccessStatus", func() protorest.Option {
			return protorest.WithSuccessStatus("conf.v1.Probes/GetProbe", 302)
		}, []string{"WithSuccessStatus(conf.v1.Probes/GetProbe)", "302 is not a success status"}},
		{"WithTrustedProxies", func() protorest.Option {
			return protorest.WithTrustedProxies("10.0.0.0/8", "10.0.0.0/40")
		}, []string{`WithTrustedProxies("10.0.0.0/40")`}},
		{"WithHealthEndpoint template", func() protorest.Option {
			return protorest.WithHealthEndpoint("/health/{", health)
		}, []string{"WithHealthEndpoint(/health/{)"}},
		{"WithoutProtocols", func() protorest.Option {
			return protorest.WithoutProtocols(protorest.Protocol(9))
		}, []string{"WithoutProtocols", "no protocol 9"}},
		{"WithHealthEndpoint conflict", func() protorest.Option {
			return protorest.WithHealthEndpoint("/healthz", health) // the second
		}, []string{"WithHealthEndpoint", "/healthz"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var opt protorest.Option
			func() {
				defer func() {
					if v := recover(); v != nil {
						t.Fatalf("the option panicked: %v", v)
					}
				}()
				opt = tt.opt()
			}()
			var hooked atomic.Int32
			var hookedWith atomic.Value
			hook := protorest.WithPanicHook(func(method string, v any, _ []byte) {
				hooked.Add(1)
				hookedWith.Store(v)
			})
			// A health endpoint's route to conflict with: the gateway
			// registers its route as it is made.
			gw := protorest.NewGateway(protorest.WithHealthEndpoint("/healthz", health), opt, hook)
			says := func(what string, err error) {
				t.Helper()
				if err == nil {
					t.Fatalf("%s: no error", what)
				}
				for _, w := range tt.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%s: %q does not say %q", what, err, w)
					}
				}
			}
			says("HandlePath", gw.HandlePath("GET", "/x", func(http.ResponseWriter, *http.Request) {}))
			says("HandleDocumentedPath", gw.HandleDocumentedPath("GET", "/y", func(http.ResponseWriter, *http.Request) {}, protorest.RouteDoc{}))
			says("RegisterRemote", gw.RegisterRemote(context.Background(), dial(t, "127.0.0.1:1"), protorest.WithRemoteFiles(nil)))
			func() {
				defer func() {
					v := recover()
					err, _ := v.(error)
					says("RegisterService's panic", err)
				}()
				gw.RegisterService(serviceDesc(t, "conf.v1.Probes", &recorder{}), nil)
			}()

			srv := httptest.NewServer(gw)
			defer srv.Close()
			for range 3 {
				got := fetch(t, "GET", srv.URL+"/x", "")
				if got.code != 500 || !strings.Contains(got.body, `"code":13`) || !strings.Contains(got.body, "misconfigured") {
					t.Errorf("a request: %d %s", got.code, got.body)
				}
				for _, w := range tt.want {
					if strings.Contains(got.body, w) {
						t.Errorf("the response tells the client %q: %s", w, got.body)
					}
				}
			}
			if n := hooked.Load(); n != 1 {
				t.Fatalf("the panic hook was called %d times, want once", n)
			}
			err, _ := hookedWith.Load().(error)
			says("the panic hook's value", err)
		})
	}
}

// TestOptionsWithoutMistakes: a gateway whose options are good serves as
// before, the health endpoint's route included.
func TestOptionsWithoutMistakes(t *testing.T) {
	t.Parallel()
	gw := protorest.NewGateway(
		protorest.WithCORS(protorest.CORS{AllowedOrigins: []string{"https://app.example.com"}}),
		protorest.WithSuccessStatus("conf.v1.Probes/CreateProbe", 201),
		protorest.WithTrustedProxies("10.0.0.0/8", "2001:db8::1"),
		protorest.WithCompression(protorest.Compression{}),
	)
	gw.RegisterService(serviceDesc(t, "conf.v1.Probes", &recorder{}), nil)
	if err := gw.HandlePath("GET", "/x", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("x")) }); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	defer srv.Close()
	if got := fetch(t, "POST", srv.URL+"/v1/probes", `{"name":"a"}`); got.code != 201 {
		t.Errorf("POST /v1/probes: %d %s", got.code, got.body)
	}
	if got := fetch(t, "GET", srv.URL+"/x", ""); got.code != 200 || got.body != "x" {
		t.Errorf("GET /x: %d %s", got.code, got.body)
	}
}
