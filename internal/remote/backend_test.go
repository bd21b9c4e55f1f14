package remote

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/descsource"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/plan"
	"github.com/protorest/protorest/internal/resolve"
	"github.com/protorest/protorest/internal/route"
	_ "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// newBackends returns backends that route into table. Loads read the
// conf.v1 services from the generated descriptors, or fail while down is
// set.
func newBackends(t *testing.T, table *route.Table[*exchange.Endpoint]) (*Backends, *atomic.Bool, Options) {
	t.Helper()
	cfg := config.Default()
	cfg.Binding.JSON = &codec.JSON{}
	b := &Backends{Config: &cfg, Types: resolve.New(protoregistry.GlobalTypes), Replace: func(drop, add plan.Entries, dropServices, services []string) error {
		return table.Replace(drop, add, dropServices, services)
	}}
	down := new(atomic.Bool)
	services := []string{"conf.v1.Probes"}
	o := Options{Load: func(context.Context, grpc.ClientConnInterface) (*descsource.Set, error) {
		if down.Load() {
			return nil, errors.New("reflection: connection refused")
		}
		return descsource.FromFiles(protoregistry.GlobalFiles, services...)
	}}
	return b, down, o
}

func dial(t *testing.T) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient("127.0.0.1:1", grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func routes(table *route.Table[*exchange.Endpoint], method, path string) bool {
	var m route.Match[*exchange.Endpoint]
	return table.Tree().Match(method, path, &m)
}

// TestBackendsRegister: a backend's methods are routed, remote; a reload
// of the same descriptors keeps its routes.
func TestBackendsRegister(t *testing.T) {
	t.Parallel()
	var table route.Table[*exchange.Endpoint]
	b, _, o := newBackends(t, &table)
	if err := b.Register(context.Background(), dial(t), o); err != nil {
		t.Fatal(err)
	}
	list := b.List()
	if len(list) != 1 || strings.Join(list[0].Services(), ",") != "conf.v1.Probes" || len(list[0].Entries()) == 0 {
		t.Fatalf("registered %d backends: %v", len(list), list)
	}
	if !routes(&table, http.MethodGet, "/v1/probes/a") {
		t.Error("GET /v1/probes/a is not routed")
	}
	for _, e := range list[0].Entries() {
		if _, ok := e.Value.Binding.Invoker.(*UnaryMethod); !ok && !e.Value.Binding.Streaming() {
			t.Errorf("%s: invoker %T", e.Value.Pattern, e.Value.Binding.Invoker)
		}
		if !e.Value.Binding.Response.Wire {
			t.Errorf("%s: responses are not the backend's wire bytes", e.Value.Pattern)
		}
	}
	first := list[0].Entries()[0]
	if err := b.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b.List()[0].Entries()[0] != first {
		t.Error("a reload of the same descriptors replaced the routes")
	}
	if b.Pending() {
		t.Error("a loaded backend is pending")
	}
}

// TestBackendsPending: a backend that cannot be loaded is registered only
// when pending, with an error that wraps ErrNotLoaded; a reload that
// loads it routes its methods. One that fails to reload keeps its routes.
func TestBackendsPending(t *testing.T) {
	t.Parallel()
	var table route.Table[*exchange.Endpoint]
	b, down, o := newBackends(t, &table)
	down.Store(true)
	err := b.Register(context.Background(), dial(t), o)
	if !errors.Is(err, ErrNotLoaded) || !strings.Contains(err.Error(), "connection refused") || len(b.List()) != 0 {
		t.Fatalf("not pending: %v, %d registered", err, len(b.List()))
	}
	o.Pending = true
	err = b.Register(context.Background(), dial(t), o)
	if !errors.Is(err, ErrNotLoaded) || len(b.List()) != 1 || !b.Pending() {
		t.Fatalf("pending: %v, %d registered, pending %v", err, len(b.List()), b.Pending())
	}
	down.Store(false)
	if err := b.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b.Pending() || !routes(&table, http.MethodGet, "/v1/probes/a") {
		t.Fatalf("after the reload: pending %v", b.Pending())
	}
	down.Store(true)
	if err := b.Reload(context.Background()); !errors.Is(err, ErrNotLoaded) {
		t.Errorf("a failed reload: %v", err)
	}
	if b.Pending() || !routes(&table, http.MethodGet, "/v1/probes/a") {
		t.Error("a failed reload dropped the routes")
	}
}

// TestBackendsMethod: a loaded backend's methods are found, with their
// kind; another service's, or a name of no method, are not.
func TestBackendsMethod(t *testing.T) {
	t.Parallel()
	var table route.Table[*exchange.Endpoint]
	b, _, o := newBackends(t, &table)
	if b.Method("conf.v1.Probes", "Chat") != nil {
		t.Fatal("a method found before any backend is loaded")
	}
	if err := b.Register(context.Background(), dial(t), o); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"conf.v1.Probes/Ping": "unary", "conf.v1.Probes/Chat": "bidi", "conf.v1.Probes/Watch": "server",
		"conf.v1.Probes/Nope": "", "conf.v1.Other/Ping": "", "conf.v1.Probes/": "", "/Ping": "",
	} {
		service, method, _ := strings.Cut(name, "/")
		got := ""
		if md := b.Method(protoreflect.FullName(service), protoreflect.Name(method)); md != nil {
			switch {
			case md.IsStreamingClient() && md.IsStreamingServer():
				got = "bidi"
			case md.IsStreamingServer():
				got = "server"
			default:
				got = "unary"
			}
		}
		if got != want {
			t.Errorf("Method(%q): %q, want %q", name, got, want)
		}
	}
}
