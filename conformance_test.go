package protorest_test

import (
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest"
)

// The cases of ../shared/spec/conformance-cases.md that concern unary
// methods, with the outcomes PROFILE.md decides (its table wins over the
// REF column where they differ; the comment says so).
//
// Fixtures: A = conf.v1.Probes; B = conf.v1.Order without B8 (B7 and B8
// are the duplicate pair of C022, which fails registration; see
// TestRegisterConflict); C = conf.v1.CatchAll with A1 and A2; D =
// conf.v1.DoAnything.
type confCase struct {
	id      string
	fixture string
	opts    []protorest.Option
	method  string
	target  string
	body    string
	headers []string
	rpc     string // the method called, or "" for none
	want    string // its request message, in proto text format
	status  int    // 0 means 200
	bodyHas string // a part of the response body
	allow   string // the Allow header of a 405
}

var conformanceCases = []confCase{
	// 1. Route matching.
	{id: "C001", method: "GET", target: "/v1/probes/abc", rpc: "GetProbe", want: `name: "abc"`},
	{id: "C003", method: "GET", target: "/v1/probes/special", rpc: "GetSpecial"},
	{id: "C005", method: "GET", target: "/V1/probes/x", status: 404, bodyHas: `"code":5`},
	{id: "C007", method: "DELETE", target: "/v1/probes/abc", rpc: "DeleteProbe", want: `name: "abc"`, bodyHas: `{}`},
	// PROFILE: the path matches for other methods → 405 (REF 404, G 501).
	{id: "C009", method: "HEAD", target: "/v1/probes/abc", status: 405, allow: "DELETE, GET, OPTIONS, PATCH, PUT"},
	{id: "C011", method: "GET", target: "/v1/probes/", rpc: "ListProbes"},
	{id: "C013", method: "GET", target: "/v1//probes/abc", status: 404},
	{id: "C015", fixture: "B", method: "GET", target: "/v1/x/b", rpc: "B2", want: `parent: "b"`},
	{id: "C017", fixture: "B", method: "GET", target: "/v1/x/y/e", rpc: "B4", want: `name: "x"`},
	{id: "C019", fixture: "B", method: "GET", target: "/v2/q", rpc: "B5", want: `name: "q"`},
	{id: "C021", fixture: "B", method: "GET", target: "/v2", rpc: "B6"},
	{id: "C023/PATCH", fixture: "B", method: "PATCH", target: "/v5/abc", rpc: "B9", want: `name: "abc"`},
	{id: "C023/FOO", fixture: "B", method: "FOO", target: "/v5/abc", rpc: "B9", want: `name: "abc"`},
	{id: "C025", fixture: "B", method: "GET", target: "/c//x", rpc: "B13", want: `parent: "x"`},
	{id: "C027", fixture: "C", method: "GET", target: "/", rpc: "C1"},
	{id: "C027/other", fixture: "C", method: "GET", target: "/v1/probes/abc", rpc: "GetProbe", want: `name: "abc"`},
	{id: "C027/deep", fixture: "C", method: "GET", target: "/a/b/c", rpc: "C1"},

	// 2. Custom verbs.
	{id: "C029", method: "POST", target: "/v1/probes/abc:archive", rpc: "ArchiveProbe", want: `name: "probes/abc"`},
	// PROFILE: :archive is registered, so it is a verb; no GET has it → 405.
	{id: "C030", method: "GET", target: "/v1/probes/abc:archive", status: 405, allow: "POST"},
	{id: "C031", method: "GET", target: "/v1/probes/abc:zzz", rpc: "GetProbe", want: `name: "abc:zzz"`},
	{id: "C033", method: "POST", target: "/v1/probes/x:Archive", status: 405},
	{id: "C035", method: "GET", target: "/v1/probes:search", status: 405, allow: "POST"},
	{id: "C037", method: "POST", target: "/v1/probes/a:b:archive", rpc: "ArchiveProbe", want: `name: "probes/a:b"`},
	{id: "C039", method: "POST", target: "/v1/probes/p1:rename", body: `"New"`, rpc: "Rename", want: `parent: "p1" display_name: "New"`},
	{id: "C041", method: "POST", target: "/v1/lookup:batch", body: `{"name":"n"}`, rpc: "Lookup", want: `name: "n"`},
	{id: "C043", fixture: "B", method: "GET", target: "/v6/x:verb2/y:verb", rpc: "B10", want: `name: "x:verb2/y"`},
	{id: "C045", method: "POST", target: "/v1/probes/abc%3Aarchive", status: 405},
	{id: "C044", fixture: "D", method: "POST", target: "/a/b:do", body: `{}`, rpc: "D1", want: `name: "a/b"`},

	// 3. Percent-decoding.
	{id: "C047", method: "GET", target: "/v1/probes/a%2Fb", rpc: "GetProbe", want: `name: "a/b"`},
	{id: "C049", method: "GET", target: "/v1/probes/a%20b", rpc: "GetProbe", want: `name: "a b"`},
	{id: "C051", method: "GET", target: "/v1/probes/%E4%BD%A0", rpc: "GetProbe", want: `name: "你"`},
	{id: "C053", method: "GET", target: "/v1/probes/%25", rpc: "GetProbe", want: `name: "%"`},
	{id: "C055", method: "GET", target: "/v1/shelves/s1/books", status: 404},
	{id: "C057", method: "GET", target: "/v1/files/a/b/c", rpc: "GetFile", want: `name: "a/b/c"`},
	// PROFILE: multi-segment default is http.proto's (all but %2F).
	{id: "C059", method: "GET", target: "/v1/files/a%2Fb/c", rpc: "GetFile", want: `name: "a%2Fb/c"`},
	{id: "C059/all", opts: []protorest.Option{protorest.WithPathUnescaping(protorest.UnescapeAll)}, method: "GET", target: "/v1/files/a%2Fb/c", rpc: "GetFile", want: `name: "a/b/c"`},
	{id: "C061", method: "GET", target: "/v1/files/a%2Fb/c%3Fd%2B%20e", rpc: "GetFile", want: `name: "a%2Fb/c?d+ e"`},
	{id: "C061/reserved", opts: []protorest.Option{protorest.WithPathUnescaping(protorest.UnescapeAllExceptReserved)}, method: "GET", target: "/v1/files/a%2Fb/c%3Fd%2B%20e", rpc: "GetFile", want: `name: "a%2Fb/c%3Fd%2B e"`},

	// 4. "**" followed by a suffix.
	{id: "C063", method: "GET", target: "/v1/tree/a/b/meta", rpc: "GetTreeMeta", want: `name: "tree/a/b"`},
	{id: "C064", method: "GET", target: "/v1/tree/meta", status: 404},
	{id: "C065", method: "GET", target: "/v1/tree/a/meta/b/meta", rpc: "GetTreeMeta", want: `name: "tree/a/meta/b"`},

	// 5. Path value conversion.
	{id: "C067", method: "GET", target: "/v1/ids/123", rpc: "GetById", want: `id: 123`},
	{id: "C069", method: "GET", target: "/v1/ids/9223372036854775808", status: 400, bodyHas: `id`},
	{id: "C071", method: "GET", target: "/v1/ids/", status: 404},
	{id: "C073", method: "GET", target: "/v1/shelves/s1/lookup/n1", rpc: "Lookup", want: `parent: "s1" name: "n1"`},
	{id: "C012/nested", method: "GET", target: "/v1/nested/x/7", rpc: "GetNested", want: `inner {s: "x" i: 7}`},

	// 6. Query parameters.
	{id: "C075/json", method: "GET", target: "/v1/probes?displayName=x", rpc: "ListProbes", want: `display_name: "x"`},
	{id: "C075/proto", method: "GET", target: "/v1/probes?display_name=x", rpc: "ListProbes", want: `display_name: "x"`},
	{id: "C077", method: "GET", target: "/v1/probes?lastName=x", status: 400, bodyHas: `lastName`},
	{id: "C077/lname", method: "GET", target: "/v1/probes?lname=x", rpc: "ListProbes", want: `last_name: "x"`},
	{id: "C079", opts: []protorest.Option{protorest.WithDiscardUnknownQueryParameters()}, method: "GET", target: "/v1/probes?foo=bar", rpc: "ListProbes"},
	{id: "C079/list", opts: []protorest.Option{protorest.WithIgnoredQueryParameters("api_key")}, method: "GET", target: "/v1/probes?api_key=k&i32=1", rpc: "ListProbes", want: `i32: 1`},
	// PROFILE: '+' is a space by default.
	{id: "C081", method: "GET", target: "/v1/probes?inner.s=a+b%2Bc", rpc: "ListProbes", want: `inner {s: "a b+c"}`},
	{id: "C081/literal", opts: []protorest.Option{protorest.WithLiteralPlusInQuery()}, method: "GET", target: "/v1/probes?inner.s=a+b%2Bc", rpc: "ListProbes", want: `inner {s: "a+b+c"}`},
	{id: "C083", method: "GET", target: "/v1/probes?tags=a&tags=b", rpc: "ListProbes", want: `tags: ["a", "b"]`},
	{id: "C085", method: "GET", target: "/v1/probes?i32=1&i32=2", status: 400, bodyHas: `i32`},
	{id: "C086", method: "GET", target: "/v1/probes/abc?name=zz", status: 400, bodyHas: `name`},
	{id: "C087", method: "GET", target: "/v1/probes?flag", status: 400, bodyHas: `flag`},
	{id: "C087/string", method: "GET", target: "/v1/probes?name", rpc: "ListProbes"},
	{id: "C089", method: "GET", target: "/v1/probes?i32=", status: 400, bodyHas: `i32`},
	{id: "C091", method: "GET", target: "/v1/probes?inner=x", status: 400, bodyHas: `inner`},
	{id: "C093", method: "GET", target: "/v1/probes?labels%5Bk%5D=v", status: 400},
	{id: "C094", method: "GET", target: "/v1/probes?items.s=x", status: 400, bodyHas: `items`},
	{id: "C095", method: "GET", target: "/v1/probes?opt_a=1&opt_b=2", status: 400, bodyHas: `opt_b`},
	{id: "C097/true", method: "GET", target: "/v1/probes?flag=true", rpc: "ListProbes", want: `flag: true`},
	{id: "C097/1", method: "GET", target: "/v1/probes?flag=1", rpc: "ListProbes", want: `flag: true`},
	{id: "C097/TRUE", method: "GET", target: "/v1/probes?flag=TRUE", rpc: "ListProbes", want: `flag: true`},
	{id: "C099/name", method: "GET", target: "/v1/probes?color=GREEN", rpc: "ListProbes", want: `color: GREEN`},
	{id: "C099/number", method: "GET", target: "/v1/probes?color=2", rpc: "ListProbes", want: `color: GREEN`},
	{id: "C101", method: "GET", target: "/v1/probes?color=7", status: 400, bodyHas: `color`},
	{id: "C103", method: "GET", target: "/v1/probes?u64=-1", status: 400, bodyHas: `u64`},
	{id: "C105", method: "GET", target: "/v1/probes?dbl=inf", status: 400, bodyHas: `dbl`},
	{id: "C105/Infinity", method: "GET", target: "/v1/probes?dbl=Infinity", rpc: "ListProbes", want: `dbl: inf`},
	// PROFILE: the raw '+' became a space, which is not base64.
	{id: "C107", method: "GET", target: "/v1/probes?blob=aGk+", status: 400, bodyHas: `blob`},
	{id: "C107/encoded", method: "GET", target: "/v1/probes?blob=aGk%2B", rpc: "ListProbes", want: `blob: "hi>"`},
	{id: "C109", method: "GET", target: "/v1/probes?ts=2017-01-15T01:30:15.01Z", rpc: "ListProbes", want: `ts {seconds: 1484443815 nanos: 10000000}`},
	{id: "C111", method: "GET", target: "/v1/probes?ts=2017-01-15T01:30:15+08:00", status: 400, bodyHas: `ts`},
	{id: "C111/encoded", method: "GET", target: "/v1/probes?ts=2017-01-15T01:30:15%2B08:00", rpc: "ListProbes", want: `ts {seconds: 1484415015}`},
	{id: "C113", method: "GET", target: "/v1/probes?dur=1.5s", rpc: "ListProbes", want: `dur {seconds: 1 nanos: 500000000}`},
	{id: "C113/go", method: "GET", target: "/v1/probes?dur=90m", rpc: "ListProbes", want: `dur {seconds: 5400}`},
	{id: "C115", method: "GET", target: "/v1/probes?mask=displayName,inner.s", rpc: "ListProbes", want: `mask {paths: ["display_name", "inner.s"]}`},
	{id: "C116", method: "GET", target: "/v1/probes?wi32=5", rpc: "ListProbes", want: `wi32 {value: 5}`},
	{id: "C117", method: "GET", target: "/v1/probes?val=123", rpc: "ListProbes", want: `val {string_value: "123"}`},
	{id: "C118", method: "GET", target: "/v1/probes?attrs=x", status: 400, bodyHas: `attrs`},

	// 7. Query parameters with a body. PROFILE: a query never touches
	// what the body binds.
	{id: "C119", method: "PATCH", target: "/v1/probes/abc?inner.s=q", status: 400, bodyHas: `inner.s`},
	{id: "C121", method: "PATCH", target: "/v1/probes/abc?inner.s=q", body: `{"s":"b"}`, status: 400},
	{id: "C123", method: "POST", target: "/v1/probes?tags=q", body: `{"tags":["a","b"]}`, status: 400, bodyHas: `tags`},
	{id: "C123/ignore", opts: []protorest.Option{protorest.WithDiscardUnknownQueryParameters()}, method: "POST", target: "/v1/probes?tags=q", body: `{"tags":["a","b"]}`, rpc: "CreateProbe", want: `tags: ["a", "b"]`},
	{id: "C120", method: "PATCH", target: "/v1/probes/abc?i32=4", body: `{"s":"b"}`, rpc: "UpdateProbe", want: `name: "abc" i32: 4 inner {s: "b"} mask {paths: "s"}`},
	// PROFILE: a PATCH with a body field and one FieldMask derives the mask
	// from the body's keys, unless the client set it.
	{id: "C126", method: "PATCH", target: "/v1/probes/abc", body: `{"s":"b","deeper":{"i":1}}`, rpc: "UpdateProbe", want: `name: "abc" inner {s: "b" deeper {i: 1}} mask {paths: ["deeper.i", "s"]}`},
	{id: "C126/client mask", method: "PATCH", target: "/v1/probes/abc?mask=s", body: `{"s":"b","i":2}`, rpc: "UpdateProbe", want: `name: "abc" inner {s: "b" i: 2} mask {paths: "s"}`},
	{id: "C126/unknown key", method: "PATCH", target: "/v1/probes/abc", body: `{"ss":"typo"}`, status: 400, bodyHas: `\"ss\"`},
	{id: "C126/empty mask", method: "PATCH", target: "/v1/probes/abc?mask=", body: `{"s":"b"}`, rpc: "UpdateProbe", want: `name: "abc" inner {s: "b"} mask {paths: "s"}`},
	{id: "C126/binary body", method: "PATCH", target: "/v1/probes/abc", body: "\x0a\x01b", headers: []string{"Content-Type", "application/proto"}, rpc: "UpdateProbe", want: `name: "abc" inner {s: "b"}`},
	{id: "C126/off", opts: []protorest.Option{protorest.WithoutFieldMaskDerivation()}, method: "PATCH", target: "/v1/probes/abc", body: `{"s":"b"}`, rpc: "UpdateProbe", want: `name: "abc" inner {s: "b"}`},

	// 8. Request body.
	{id: "C125", method: "POST", target: "/v1/probes", rpc: "CreateProbe"},
	// PROFILE: an empty body leaves the body field unset.
	{id: "C127", method: "PATCH", target: "/v1/probes/abc", rpc: "UpdateProbe", want: `name: "abc"`},
	// PROFILE: a body on a rule with no body is ignored.
	{id: "C129", method: "GET", target: "/v1/probes/abc", body: `{"i32":5}`, rpc: "GetProbe", want: `name: "abc"`},
	// PROFILE: the path wins over the body.
	{id: "C131", method: "PUT", target: "/v1/probes/abc", body: `{"name":"zzz","i32":1}`, rpc: "ReplaceProbe", want: `name: "abc" i32: 1`},
	{id: "C133", method: "POST", target: "/v1/probes", body: `INVALID_JSON`, status: 400, bodyHas: `"code":3`},
	{id: "C135", method: "POST", target: "/v1/probes", body: `{"name":"n"}EXTRA`, status: 400},
	{id: "C137", method: "POST", target: "/v1/probes", body: `{'name':'n'}`, status: 400},
	{id: "C138", method: "POST", target: "/v1/probes", body: " \n\t ", rpc: "CreateProbe"},
	{id: "C139", method: "POST", target: "/v1/probes", body: `[{"name":"n"}]`, status: 400},
	// PROFILE: unknown enum names are ignored, like protojson DiscardUnknown.
	{id: "C141", method: "POST", target: "/v1/probes", body: `{"color":"Green"}`, rpc: "CreateProbe"},
	{id: "C143", method: "POST", target: "/v1/probes", body: `{"color":99}`, rpc: "CreateProbe", want: `color: 99`},
	{id: "C145", method: "POST", target: "/v1/probes", body: `{"id":12.5}`, status: 400},
	{id: "C147", method: "POST", target: "/v1/probes", body: `{"blob":"aGk"}`, rpc: "CreateProbe", want: `blob: "hi"`},
	// PROFILE: protojson's decisions: FieldMask paths must be lowerCamel.
	{id: "C149", method: "POST", target: "/v1/probes", body: `{"mask":"display_name"}`, status: 400},
	{id: "C149/camel", method: "POST", target: "/v1/probes", body: `{"mask":"displayName"}`, rpc: "CreateProbe", want: `mask {paths: "display_name"}`},
	// PROFILE: duplicate keys are a 400.
	{id: "C151", method: "POST", target: "/v1/probes", body: `{"name":"a","name":"b"}`, status: 400},
	{id: "C153", method: "POST", target: "/v1/probes", body: `{"labels":{"k":"v","k":"w"}}`, status: 400},
	{id: "C154", method: "POST", target: "/v1/probes", body: `{"inner":null,"displayName":"x"}`, rpc: "CreateProbe", want: `display_name: "x"`},
	{id: "C155", method: "POST", target: "/v1/probes", body: `{"val":123,"attrs":{"a":[1,"x",null]}}`, rpc: "CreateProbe",
		want: `val {number_value: 123} attrs {fields {key: "a" value {list_value {values {number_value: 1} values {string_value: "x"} values {null_value: NULL_VALUE}}}}}`},
	{id: "C157", method: "POST", target: "/v1/probes", body: `{"attrs":` + strings.Repeat(`{"a":`, 31) + `1` + strings.Repeat(`}`, 32), rpc: "CreateProbe",
		want: `attrs {` + strings.Repeat(`fields {key: "a" value {struct_value {`, 30) + `fields {key: "a" value {number_value: 1}}` + strings.Repeat(`}}}`, 30) + `}`},
	{id: "depth 101", method: "POST", target: "/v1/probes", body: `{"attrs":` + strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat(`}`, 101), status: 400, bodyHas: `depth`},
	{id: "C046/content type", method: "POST", target: "/v1/probes", body: `{"name":"n"}`, headers: []string{"Content-Type", "text/plain"}, rpc: "CreateProbe", want: `name: "n"`},
	{id: "C046/form", method: "POST", target: "/v1/probes", body: `{"name":"n"}`, headers: []string{"Content-Type", "application/x-www-form-urlencoded"}, rpc: "CreateProbe", want: `name: "n"`},

	// 9. google.api.HttpBody.
	{id: "C158", method: "POST", target: "/v1/uploads/u1?flag=true", body: "hello", headers: []string{"Content-Type", "text/plain"}, rpc: "Upload",
		want: `name: "u1" flag: true payload {content_type: "text/plain" data: "hello"}`},
	{id: "C161", method: "POST", target: "/v1/raw", body: "\x00\xff", headers: []string{"Content-Type", "application/octet-stream"}, rpc: "RawEcho",
		want: `content_type: "application/octet-stream" data: "\000\377"`},
}

func TestConformance(t *testing.T) {
	t.Parallel()
	for _, c := range conformanceCases {
		t.Run(c.id, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{}
			gw := newFixture(t, c.fixture, rec, c.opts...)
			resp := do(t, gw, c.method, c.target, c.body, c.headers...)
			wantStatus := c.status
			if wantStatus == 0 {
				wantStatus = http.StatusOK
			}
			if resp.code != wantStatus {
				t.Fatalf("%s %s: status %d, want %d; body %s", c.method, c.target, resp.code, wantStatus, resp.body)
			}
			if c.bodyHas != "" && !strings.Contains(resp.body, c.bodyHas) {
				t.Errorf("body %s does not contain %s", resp.body, c.bodyHas)
			}
			if c.allow != "" {
				if got := resp.header.Get("Allow"); got != c.allow {
					t.Errorf("Allow = %q, want %q", got, c.allow)
				}
			}
			if wantStatus >= 400 {
				if ct := resp.header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("error Content-Type = %q", ct)
				}
				if !strings.HasPrefix(resp.body, `{"code":`) {
					t.Errorf("error body is not a Status: %s", resp.body)
				}
			}
			if c.rpc == "" {
				if n := rec.count(); n != 0 {
					t.Errorf("%d methods called, want none", n)
				}
				return
			}
			call := rec.last(t)
			if call.method != c.rpc {
				t.Fatalf("called %s, want %s", call.method, c.rpc)
			}
			want := call.req.ProtoReflect().New().Interface()
			if err := prototext.Unmarshal([]byte(c.want), want); err != nil {
				t.Fatalf("bad want %q: %v", c.want, err)
			}
			if !proto.Equal(want, call.req) {
				t.Errorf("request message:\n got: %v\nwant: %v", prototext.Format(call.req), prototext.Format(want))
			}
		})
	}
}
