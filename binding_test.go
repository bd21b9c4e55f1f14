package protorest_test

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

func TestBinaryRequest(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	gw := newFixture(t, "A", rec)
	body := mustMarshal(&confv1.Probe{Name: "from-body", I32: 7})
	resp := do(t, gw, "POST", "/v1/probes", body, "Content-Type", "application/proto")
	if resp.code != 200 || resp.header.Get("Content-Type") != "application/proto" {
		t.Fatalf("status %d, type %q: %q", resp.code, resp.header.Get("Content-Type"), resp.body)
	}
	if got := rec.last(t).req.(*confv1.Probe); got.GetName() != "from-body" || got.GetI32() != 7 {
		t.Errorf("request = %v", got)
	}
	resp = do(t, gw, "POST", "/v1/probes", "\xff\xff\xff", "Content-Type", "application/proto")
	if resp.code != 400 {
		t.Errorf("bad wire data: status %d", resp.code)
	}
}

func TestRejectUnknownFields(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	strict := newFixture(t, "A", rec, protorest.WithUnmarshalOptions(protojson.UnmarshalOptions{}))
	if resp := do(t, strict, "POST", "/v1/probes", `{"bogus":1}`); resp.code != 400 || !strings.Contains(resp.body, "bogus") {
		t.Errorf("strict: %d %s", resp.code, resp.body)
	}
	if resp := do(t, strict, "POST", "/v1/probes", `{"color":"Green"}`); resp.code != 400 {
		t.Errorf("strict enum: %d %s", resp.code, resp.body)
	}
	lenient := newFixture(t, "A", rec)
	if resp := do(t, lenient, "POST", "/v1/probes", `{"bogus":{"x":[1]},"name":"n"}`); resp.code != 200 {
		t.Errorf("R43 lenient: %d %s", resp.code, resp.body)
	}
}

func TestScalarBodyMustBeOneValue(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	gw := newFixture(t, "A", rec)
	resp := do(t, gw, "POST", "/v1/probes/p:rename", `"x", "id": 7, "name": "evil"`)
	if resp.code != 400 || rec.count() != 0 {
		t.Errorf("status %d, %d calls: %s", resp.code, rec.count(), resp.body)
	}
}

func TestBinaryBodyEveryByteCounts(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	gw := newFixture(t, "A", rec)
	if resp := do(t, gw, "POST", "/v1/probes", "\n", "Content-Type", "application/proto"); resp.code != 400 {
		t.Errorf("truncated binary body: %d %s", resp.code, resp.body)
	}
	if resp := do(t, gw, "POST", "/v1/probes", "", "Content-Type", "application/proto"); resp.code != 200 {
		t.Errorf("empty binary body: %d %s", resp.code, resp.body)
	}
	if n := rec.count(); n != 1 {
		t.Errorf("%d calls", n)
	}
}
