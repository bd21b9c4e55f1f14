package bench

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// probeRecorder keeps the request of its last CreateProbe (POST
// /v1/probes, body "*") or ListProbes (GET /v1/probes) call.
type probeRecorder struct {
	confv1.UnimplementedProbesServer
	last atomic.Pointer[confv1.Probe]
}

func (r *probeRecorder) CreateProbe(_ context.Context, p *confv1.Probe) (*confv1.Probe, error) {
	r.last.Store(p)
	return p, nil
}

func (r *probeRecorder) ListProbes(_ context.Context, p *confv1.Probe) (*confv1.Probe, error) {
	r.last.Store(p)
	return p, nil
}

// TestUnknownEnumNames: protorest reads enum values in a request as
// grpc-gateway does. In a JSON body (protojson with DiscardUnknown, the
// ServeMux's default inbound marshaler) a name the enum does not declare
// is dropped without an error: a singular field stays unset, a list loses
// the element (a numeric string is such a name); an undeclared number is
// kept (open enum). In a query parameter (runtime.PopulateQueryParameters) an
// undeclared name is a 400. grpc-gateway's side is run as its generated
// code runs it, on the same input; protorest's behind a real HTTP server.
func TestUnknownEnumNames(t *testing.T) {
	probes := &probeRecorder{}
	gw := protorest.NewGateway()
	confv1.RegisterProbesServer(gw, probes)
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)
	in, _ := runtime.MarshalerForRequest(runtime.NewServeMux(), httptest.NewRequest("POST", "/v1/probes", nil))
	noFilter := &utilities.DoubleArray{Encoding: map[string]int{}}

	for _, tt := range []struct {
		name string
		req  Request
		want string // the request the method gets, in prototext; "400" for INVALID_ARGUMENT
	}{
		{"declared name", Request{"POST", "/v1/probes", `{"color":"GREEN"}`}, `color: GREEN`},
		{"name in the wrong case", Request{"POST", "/v1/probes", `{"name":"n","color":"Green"}`}, `name: "n"`},
		{"undeclared name", Request{"POST", "/v1/probes", `{"color":"BLUE"}`}, ``},
		{"undeclared names in a list", Request{"POST", "/v1/probes", `{"colors":["RED","BLUE","GREEN","Green"]}`}, `colors: [RED, GREEN]`},
		{"undeclared number", Request{"POST", "/v1/probes", `{"color":99,"colors":[7]}`}, `color: 99 colors: 7`},
		{"numeric string", Request{"POST", "/v1/probes", `{"color":"2"}`}, ``},
		{"query: declared name", Request{"GET", "/v1/probes?color=GREEN", ""}, `color: GREEN`},
		{"query: undeclared name", Request{"GET", "/v1/probes?color=BLUE", ""}, `400`},
		{"query: undeclared name in a list", Request{"GET", "/v1/probes?colors=RED&colors=BLUE", ""}, `400`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			probes.last.Store(nil)
			// grpc-gateway, as its generated request_Probes_*_0 read the
			// request: the body with the inbound marshaler's decoder, the
			// query with PopulateQueryParameters.
			var gg confv1.Probe
			var ggErr error
			if tt.req.Method == "POST" {
				if err := in.NewDecoder(strings.NewReader(tt.req.Body)).Decode(&gg); err != nil && !errors.Is(err, io.EOF) {
					ggErr = err
				}
			} else {
				u, err := url.Parse(tt.req.Target)
				if err != nil {
					t.Fatal(err)
				}
				ggErr = runtime.PopulateQueryParameters(&gg, u.Query(), noFilter)
			}
			res := sendBody(t, srv, tt.req)

			if tt.want == "400" {
				if ggErr == nil {
					t.Errorf("grpc-gateway read %v, want an error", &gg)
				}
				var st struct{ Code codes.Code }
				if err := json.Unmarshal(res.Body, &st); res.Status != http.StatusBadRequest || err != nil || st.Code != codes.InvalidArgument {
					t.Errorf("protorest: %d %s, want 400 INVALID_ARGUMENT", res.Status, res.Body)
				}
				if got := probes.last.Load(); got != nil {
					t.Errorf("protorest called the method with %v", got)
				}
				return
			}
			var want confv1.Probe
			if err := prototext.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if ggErr != nil || !proto.Equal(&gg, &want) {
				t.Errorf("grpc-gateway read %v (%v), want %v", &gg, ggErr, &want)
			}
			if res.Status != http.StatusOK {
				t.Fatalf("protorest: %d %s, want 200", res.Status, res.Body)
			}
			if got := probes.last.Load(); !proto.Equal(got, &want) {
				t.Errorf("protorest: the method got %v, want %v", got, &want)
			}
		})
	}
}
