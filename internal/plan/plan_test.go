package plan

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/exchange"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// invoker is the Invoker every test caller returns.
type invoker struct{}

func (invoker) Invoke(*exchange.Exchange) {}

var inProcess = Caller{Invoker: func(*bind.Request) exchange.Invoker { return invoker{} }}

func method(t *testing.T, service, name string) protoreflect.MethodDescriptor {
	t.Helper()
	sd := confv1.File_internal_testpb_conf_v1_conf_proto.Services().ByName(protoreflect.Name(service))
	md := sd.Methods().ByName(protoreflect.Name(name))
	if md == nil {
		t.Fatalf("no method %s.%s", service, name)
	}
	return md
}

func testConfig(modify func(*config.Config)) *config.Config {
	cfg := config.Default()
	cfg.Binding.JSON = &codec.JSON{}
	if modify != nil {
		modify(&cfg)
	}
	return &cfg
}

// TestMethod: a method's rule and each additional binding become one
// route, in order, with the binding's plans; a method without a rule has
// none unless every method is mapped.
func TestMethod(t *testing.T) {
	t.Parallel()
	type route struct {
		method, template string
		status           int
		clientStreams    bool
		serverStreams    bool
	}
	tests := []struct {
		name   string
		method string
		cfg    func(*config.Config)
		remote bool
		want   []route
	}{
		{name: "one rule", method: "GetProbe", want: []route{{"GET", "/v1/probes/{name}", 200, false, false}}},
		{name: "additional bindings, in order", method: "Lookup", want: []route{
			{"GET", "/v1/lookup/{name}", 200, false, false},
			{"GET", "/v1/shelves/{parent}/lookup/{name}", 200, false, false},
			{"POST", "/v1/lookup:batch", 200, false, false},
		}},
		{name: "a custom kind", method: "OptionsProbe", want: []route{{"OPTIONS", "/v1/probes/{name}", 200, false, false}}},
		{name: "a server stream", method: "Watch", want: []route{
			{"GET", "/v1/watch/{name}", 200, false, true},
			{"POST", "/v1/watch/{name}:post", 200, false, true},
		}},
		{name: "a bidirectional stream", method: "Chat", want: []route{{"POST", "/v1/chat", 200, true, true}}},
		{name: "a success status", method: "CreateProbe", cfg: func(c *config.Config) {
			c.Response.SuccessStatus = map[string]int{"/conf.v1.Probes/CreateProbe": 201}
		}, want: []route{{"POST", "/v1/probes", 201, false, false}}},
		{name: "no rule", method: "Ping", want: nil},
		{name: "no rule, mapped", method: "Ping", cfg: func(c *config.Config) { c.Registration.AutoMap = true },
			want: []route{{"POST", "/conf.v1.Probes/Ping", 200, false, false}}},
		{name: "remote", method: "GetProbe", remote: true, want: []route{{"GET", "/v1/probes/{name}", 200, false, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := inProcess
			c.Remote = tt.remote
			md := method(t, "Probes", tt.method)
			entries, err := Method(testConfig(tt.cfg), md, c)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != len(tt.want) {
				t.Fatalf("%d routes, want %d", len(entries), len(tt.want))
			}
			for i, e := range entries {
				w := tt.want[i]
				b := e.Value.Binding
				if e.Method != w.method || e.Value.Pattern != w.template || b.Index != i {
					t.Errorf("route %d: %s %s (binding %d), want %s %s", i, e.Method, e.Value.Pattern, b.Index, w.method, w.template)
				}
				if b.FullMethod != "/conf.v1.Probes/"+tt.method || b.Method != md || b.Response.Status != w.status || b.Response.Wire != tt.remote {
					t.Errorf("route %d: binding %s, status %d, wire %v", i, b.FullMethod, b.Response.Status, b.Response.Wire)
				}
				if b.ClientStreams != w.clientStreams || b.ServerStreams != w.serverStreams {
					t.Errorf("route %d: streams %v %v", i, b.ClientStreams, b.ServerStreams)
				}
				if _, ok := b.Invoker.(invoker); !ok {
					t.Errorf("route %d: invoker %T", i, b.Invoker)
				}
				rt := e.Value.Route
				if rt.Pattern != w.method+" "+w.template || rt.FullMethod != b.FullMethod || rt.ServerStreams != w.serverStreams {
					t.Errorf("route %d: %+v", i, rt)
				}
				if !strings.Contains(e.Name, "conf.v1.Probes."+tt.method) || !strings.Contains(e.Name, "internal/testpb/conf/v1/conf.proto") {
					t.Errorf("route %d: name %q", i, e.Name)
				}
			}
		})
	}
}

// TestCheckSuccessStatus: a success status for a method the service does
// not have is an error naming both; one for another service is not.
func TestCheckSuccessStatus(t *testing.T) {
	t.Parallel()
	sd := confv1.File_internal_testpb_conf_v1_conf_proto.Services().ByName("Probes")
	for _, tt := range []struct {
		method  string
		wantErr string
	}{
		{"/conf.v1.Probes/CreateProbe", ""},
		{"/conf.v1.Order/Nope", ""},
		{"/conf.v1.Probes/Nope", `WithSuccessStatus("conf.v1.Probes/Nope"): service conf.v1.Probes has no method "Nope"`},
	} {
		cfg := testConfig(func(c *config.Config) { c.Response.SuccessStatus = map[string]int{tt.method: 201} })
		err := CheckSuccessStatus(cfg, sd)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: %v, want %q", tt.method, err, tt.wantErr)
		}
	}
}

func TestFullMethod(t *testing.T) {
	t.Parallel()
	if got := FullMethod(method(t, "Order", "B1")); got != "/conf.v1.Order/B1" {
		t.Errorf("FullMethod = %q", got)
	}
}
