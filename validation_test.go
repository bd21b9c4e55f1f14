package protorest_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protopath"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// notBad is a Validator with one rule, for the methods it names: a
// Probe's name, and its inner.s, may not be "bad"; a name of "broken"
// fails the check itself. Other methods have no rules.
type notBad struct{ methods []string }

func (v notBad) ForMethod(md protoreflect.MethodDescriptor) (func(proto.Message) error, error) {
	if !contains(v.methods, string(md.Name())) {
		return nil, nil
	}
	in := md.Input()
	name, inner := in.Fields().ByName("name"), in.Fields().ByName("inner")
	s := inner.Message().Fields().ByName("s")
	return func(m proto.Message) error {
		pm := m.ProtoReflect()
		var ve protorest.ValidationError
		switch pm.Get(name).String() {
		case "bad":
			ve.Violations = append(ve.Violations, protorest.Violation{
				Field: protopath.Path{protopath.Root(in), protopath.FieldAccess(name)},
				Rule:  "probe.name_not_bad", Message: "name may not be bad"})
		case "broken":
			return errors.New("the check broke")
		}
		if pm.Has(inner) && pm.Get(inner).Message().Get(s).String() == "bad" {
			ve.Violations = append(ve.Violations, protorest.Violation{
				Field: protopath.Path{protopath.Root(in), protopath.FieldAccess(inner), protopath.FieldAccess(s)},
				Rule:  "inner.s", Message: "s may not be bad"})
		}
		if ve.Violations == nil {
			return nil
		}
		ve.Details = []proto.Message{&errdetails.ErrorInfo{Reason: "NOT_BAD", Domain: "test"}}
		return &ve
	}, nil
}

// TestValidation checks requests with a Validator, in-process and
// remote: a request that breaks a rule is answered 400 with a BadRequest
// naming the field as the client wrote it (path variable, query
// parameter, body), then the validator's details, and never reaches the
// method (the streamer implements no unary method: a call would be 501).
func TestValidation(t *testing.T) {
	t.Parallel()
	v := notBad{methods: []string{"GetProbe", "ListProbes", "GetNested", "UpdateProbe", "CreateProbe", "BulkCreate"}}
	urls, _ := streamGateways(t, protorest.WithValidation(v))
	cases := []struct {
		method, target, body string
		code                 int
		fields               string // the BadRequest's fields and reasons
	}{
		{"GET", "/v1/probes/good", "", 501, ""},
		{"GET", "/v1/probes/bad", "", 400, "name PROBE_NAME_NOT_BAD"},
		{"GET", "/v1/probes?name=bad", "", 400, "name PROBE_NAME_NOT_BAD"},
		{"GET", "/v1/probes?inner.s=bad&name=bad", "", 400, "name PROBE_NAME_NOT_BAD, inner.s INNER_S"},
		{"GET", "/v1/nested/bad/3", "", 400, "inner.s INNER_S"},
		{"PATCH", "/v1/probes/x", `{"s":"bad"}`, 400, "inner.s INNER_S"},
		{"POST", "/v1/probes", `{"name":"bad","inner":{"s":"bad"}}`, 400, "name PROBE_NAME_NOT_BAD, inner.s INNER_S"},
		{"POST", "/v1/probes", `{"name":"broken"}`, 500, ""},
		{"POST", "/v1/bulk", `{"name":"a"} {"name":"b"}`, 200, ""},
		{"POST", "/v1/bulk", `{"name":"a"} {"name":"bad"}`, 400, "name PROBE_NAME_NOT_BAD"},
		{"GET", "/v1/files/bad", "", 501, ""}, // GetFile has no rules
	}
	for gw, url := range urls {
		for _, c := range cases {
			got := fetch(t, c.method, url+c.target, c.body, "Content-Type", "application/json")
			if got.code != c.code {
				t.Errorf("%s: %s %s: %d, want %d: %s", gw, c.method, c.target, got.code, c.code, got.body)
				continue
			}
			if c.fields == "" {
				continue
			}
			var st spb.Status
			if err := protojson.Unmarshal([]byte(got.body), &st); err != nil || len(st.Details) != 2 {
				t.Errorf("%s: %s %s: %v: %s", gw, c.method, c.target, err, got.body)
				continue
			}
			var br errdetails.BadRequest
			if err := st.Details[0].UnmarshalTo(&br); err != nil || st.Details[1].MessageName() != "google.rpc.ErrorInfo" {
				t.Errorf("%s: %s %s: details %v: %s", gw, c.method, c.target, err, got.body)
				continue
			}
			var fields []string
			for _, fv := range br.FieldViolations {
				fields = append(fields, fv.Field+" "+fv.Reason)
			}
			if strings.Join(fields, ", ") != c.fields || codes.Code(st.Code) != codes.InvalidArgument {
				t.Errorf("%s: %s %s: code %d, fields %q, want %q", gw, c.method, c.target, st.Code, fields, c.fields)
			}
		}
	}
}

// failingValidator cannot compile its rules.
type failingValidator struct{}

func (failingValidator) ForMethod(md protoreflect.MethodDescriptor) (func(proto.Message) error, error) {
	return nil, errors.New("rule x does not compile")
}

// TestValidationRulesThatDoNotCompile fails the registration (the
// grpc.ServiceRegistrar's RegisterService panics with it), naming the
// method.
func TestValidationRulesThatDoNotCompile(t *testing.T) {
	t.Parallel()
	gw := protorest.NewGateway(protorest.WithValidation(failingValidator{}))
	var err error
	func() {
		defer func() { err, _ = recover().(error) }()
		gw.RegisterService(serviceDesc(t, "conf.v1.Probes", &recorder{}), nil)
	}()
	if err == nil || !strings.Contains(err.Error(), "conf.v1.Probes.GetProbe: validation rules: rule x does not compile") {
		t.Errorf("got %v", err)
	}
}

// TestValidationWithoutRulesAllocatesNothing: a Validator that gives a
// method no rules adds no allocation to its requests.
func TestValidationWithoutRulesAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	rec := &recorder{reply: func(string, proto.Message) (proto.Message, error) { return &confv1.Probe{Name: "abc"}, nil }}
	plain := newFixture(t, "A", rec)
	checked := newFixture(t, "A", rec, protorest.WithValidation(notBad{}))
	for _, target := range []string{"/v1/probes/abc", "/v1/probes?i32=5&tags=a"} {
		allocs := func(gw http.Handler) float64 {
			return testing.AllocsPerRun(200, func() {
				rec.mu.Lock()
				rec.calls = rec.calls[:0]
				rec.mu.Unlock()
				if got := do(t, gw, "GET", target, ""); got.code != 200 {
					t.Fatalf("%s: %d %s", target, got.code, got.body)
				}
			})
		}
		if a, b := allocs(plain), allocs(checked); b > a {
			t.Errorf("%s: %.1f allocations with a Validator, %.1f without", target, b, a)
		}
	}
}
