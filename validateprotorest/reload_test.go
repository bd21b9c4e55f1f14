package validateprotorest_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protorest/protorest"
	"github.com/protorest/protorest/validateprotorest"
	rulesv1 "github.com/protorest/protorest/validateprotorest/internal/rulespb/v1"
)

// writeRulesSet writes the fixture's descriptors to path, CheckRequest's
// name with rules instead of its own.
func writeRulesSet(t *testing.T, path string, rules *validate.FieldRules) {
	t.Helper()
	var set descriptorpb.FileDescriptorSet
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		for i := range fd.Imports().Len() {
			add(fd.Imports().Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	add(rulesv1.File_validateprotorest_internal_rulespb_v1_rules_proto)
	fixture := set.File[len(set.File)-1]
	for _, m := range fixture.MessageType {
		if m.GetName() != "CheckRequest" {
			continue
		}
		opts := new(descriptorpb.FieldOptions)
		proto.SetExtension(opts, validate.E_Field, rules)
		m.Field[0].Options = opts // name
	}
	b, err := proto.Marshal(&set)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func minLen(n uint64) *validate.FieldRules {
	return &validate.FieldRules{Type: &validate.FieldRules_String_{String_: &validate.StringRules{MinLen: proto.Uint64(n)}}}
}

// TestReloadRecompilesRules: a backend's rules are compiled with its
// routes, and again when a reload brings new descriptors; a reload whose
// rules do not compile fails and keeps the routes, and rules, it would
// have replaced.
func TestReloadRecompilesRules(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rules.binpb")
	writeRulesSet(t, path, minLen(3))
	gw, svc := remoteService(t, []protorest.Option{protorest.WithValidation(validateprotorest.New())}, protorest.WithDescriptorSetFile(path))
	srv := httptest.NewServer(gw)
	defer srv.Close()
	post := func() int {
		code, _ := call(t, "POST", srv.URL+"/v1/checks/abcd", "application/json", `{`+valid+`}`)
		return code
	}
	if code := post(); code != http.StatusOK {
		t.Fatalf("name abcd, min_len 3: %d", code)
	}
	writeRulesSet(t, path, minLen(5))
	if err := gw.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	before := svc.calls.Load()
	if code := post(); code != http.StatusBadRequest || svc.calls.Load() != before {
		t.Errorf("name abcd, min_len 5 after the reload: %d, %d calls", code, svc.calls.Load()-before)
	}
	writeRulesSet(t, path, &validate.FieldRules{Cel: []*validate.Rule{{Id: proto.String("bad"), Expression: proto.String("this +")}}})
	if err := gw.Reload(t.Context()); err == nil || !strings.Contains(err.Error(), "rules.v1.Rules.Check") {
		t.Errorf("a reload whose rules do not compile: %v", err)
	}
	if code := post(); code != http.StatusBadRequest {
		t.Errorf("after the failed reload, the rules it would have replaced: %d, want 400", code)
	}
}
