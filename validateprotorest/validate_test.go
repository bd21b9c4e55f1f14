package validateprotorest_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest"
)

// valid is a CheckRequest body that breaks no rule; each case changes
// one thing.
const valid = `"targetId":"1","inner":{}`

// TestRuleFamilies sends requests that break each standard rule family,
// through a JSON body, the query and path variables, to a gateway that
// serves the service in-process (generated messages) and remotely
// (dynamic messages: descriptors from reflection, descriptors whose rules
// are unknown option bytes, and descriptors compiled from the .proto
// source whose rules are a dynamic extension). Each gets 400 with the violations'
// fields as the client wrote them, and the method is not called; a valid
// request reaches it.
func TestRuleFamilies(t *testing.T) {
	cases := []struct {
		name, method, target, body string
		want                       []string // "field REASON"; nil: 200
	}{
		{"valid", "POST", "/v1/checks/abc", `{` + valid + `}`, nil},
		{"valid/query", "GET", "/v1/checks/abc?targetId=1&inner.s=x", "", nil},
		{"string/path", "POST", "/v1/checks/ab", `{` + valid + `}`, []string{"name STRING_MIN_LEN"}},
		{"string/pattern", "POST", "/v1/checks/ABC", `{` + valid + `}`, []string{"name STRING_PATTERN"}},
		{"string/email", "POST", "/v1/checks/abc", `{"emailAddress":"nope",` + valid + `}`, []string{"emailAddress STRING_EMAIL"}},
		{"string/email/proto-name", "POST", "/v1/checks/abc", `{"email_address":"nope",` + valid + `}`, []string{"emailAddress STRING_EMAIL"}},
		{"bytes", "POST", "/v1/checks/abc", `{"data":"AAAAAAAA",` + valid + `}`, []string{"data BYTES_MAX_LEN"}},
		{"int32", "POST", "/v1/checks/abc", `{"count":101,` + valid + `}`, []string{"count INT32_GTE_LTE"}},
		{"double", "POST", "/v1/checks/abc", `{"ratio":1.5,` + valid + `}`, []string{"ratio DOUBLE_GT_LT"}},
		{"enum/not-in", "POST", "/v1/checks/abc", `{"color":"COLOR_BLUE",` + valid + `}`, []string{"color ENUM_NOT_IN"}},
		{"enum/defined-only", "POST", "/v1/checks/abc", `{"color":7,` + valid + `}`, []string{"color ENUM_DEFINED_ONLY"}},
		{"repeated/unique", "POST", "/v1/checks/abc", `{"tags":["a","a"],` + valid + `}`, []string{"tags REPEATED_UNIQUE"}},
		{"repeated/max-items", "POST", "/v1/checks/abc", `{"tags":["a","b","c","d"],` + valid + `}`, []string{"tags REPEATED_MAX_ITEMS"}},
		{"repeated/items", "POST", "/v1/checks/abc", `{"tags":["a",""],` + valid + `}`, []string{"tags[1] STRING_MIN_LEN"}},
		{"map/keys", "POST", "/v1/checks/abc", `{"labels":{"k":1},` + valid + `}`, []string{`labels["k"] STRING_MIN_LEN`}},
		{"map/values", "POST", "/v1/checks/abc", `{"labels":{"kk":0},` + valid + `}`, []string{`labels["kk"] INT32_GT`}},
		{"map/max-pairs", "POST", "/v1/checks/abc", `{"labels":{"aa":1,"bb":1,"cc":1},` + valid + `}`, []string{"labels MAP_MAX_PAIRS"}},
		{"timestamp", "POST", "/v1/checks/abc", `{"at":"1970-01-01T00:00:00Z",` + valid + `}`, []string{"at TIMESTAMP_GT"}},
		{"duration", "POST", "/v1/checks/abc", `{"ttl":"61s",` + valid + `}`, []string{"ttl DURATION_LTE"}},
		{"wrapper", "POST", "/v1/checks/abc", `{"limit":0,` + valid + `}`, []string{"limit INT32_GTE"}},
		{"oneof/required", "POST", "/v1/checks/abc", `{"inner":{}}`, []string{"target REQUIRED"}},
		{"oneof/member", "POST", "/v1/checks/abc", `{"url":"not a uri","inner":{}}`, []string{"url STRING_URI"}},
		{"required", "POST", "/v1/checks/abc", `{"targetId":"1"}`, []string{"inner REQUIRED"}},
		{"nested", "POST", "/v1/checks/abc", `{"targetId":"1","inner":{"s":"toolong"}}`, []string{"inner.s STRING_MAX_LEN"}},
		{"cel/message", "POST", "/v1/checks/abc", `{"low":2,"high":1,` + valid + `}`, []string{" CHECK_RANGE"}},
		{"cel/field", "POST", "/v1/checks/abc", `{"code":"ab",` + valid + `}`, []string{"code CODE_UPPER"}},
		{"several", "POST", "/v1/checks/a", `{"count":-1,"targetId":"1"}`, []string{"name STRING_MIN_LEN", "count INT32_GTE_LTE", "inner REQUIRED"}},
		{"query/json-names", "GET", "/v1/checks/abc?targetId=1&inner.s=toolong&count=500", "", []string{"count INT32_GTE_LTE", "inner.s STRING_MAX_LEN"}},
		{"query/proto-names", "GET", "/v1/checks/abc?target_id=1&inner.s=x&email_address=nope", "", []string{"email_address STRING_EMAIL"}},
		{"query/repeated", "GET", "/v1/checks/abc?targetId=1&inner.s=x&tags=a&tags=", "", []string{"tags[1] STRING_MIN_LEN"}},
		{"body-field/path-variable", "PUT", "/v1/items/x", `{"title":"abc"}`, []string{"item.id STRING_MIN_LEN"}},
		{"body-field/body", "PUT", "/v1/items/xy", `{"title":"ab"}`, []string{"item.title STRING_MIN_LEN"}},
		{"no-rules", "GET", "/v1/plain/x", "", nil},
	}
	for _, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			url, svc := s.start(t)
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					before := svc.calls.Load()
					code, body := call(t, c.method, url+c.target, "application/json", c.body)
					called := svc.calls.Load() - before
					if c.want == nil {
						if code != http.StatusOK || called != 1 {
							t.Fatalf("got %d, %d calls, want 200 and 1: %s", code, called, body)
						}
						return
					}
					if code != http.StatusBadRequest {
						t.Fatalf("got %d, want 400: %s", code, body)
					}
					if called != 0 {
						t.Errorf("the method was called %d times", called)
					}
					st, got, hasViolations := badRequest(t, body)
					if st.Code != 3 {
						t.Errorf("code %d, want 3 (INVALID_ARGUMENT)", st.Code)
					}
					slices.Sort(got)
					want := slices.Sorted(slices.Values(c.want))
					if !slices.Equal(got, want) {
						t.Errorf("violations %q, want %q: %s", got, want, body)
					}
					if !hasViolations {
						t.Errorf("no buf.validate.Violations detail: %s", body)
					}
					if !strings.HasPrefix(st.Message, "invalid request: ") {
						t.Errorf("message %q", st.Message)
					}
				})
			}
		})
	}
}

// TestProtoNames names body fields by their proto names when the
// gateway writes proto names, and query parameters as they were given.
func TestProtoNames(t *testing.T) {
	for _, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			url, _ := s.start(t, protorest.WithMarshalOptions(protojson.MarshalOptions{UseProtoNames: true}))
			for target, want := range map[string]string{
				"/v1/checks/abc": "email_address STRING_EMAIL",
				"/v1/checks/abc?targetId=1&inner.s=x&emailAddress=x": "emailAddress STRING_EMAIL",
			} {
				body := `{"emailAddress":"nope",` + valid + `}`
				method := "POST"
				if strings.Contains(target, "?") {
					method, body = "GET", ""
				}
				code, got := call(t, method, url+target, "application/json", body)
				if code != http.StatusBadRequest {
					t.Fatalf("%s: got %d: %s", target, code, got)
				}
				_, v, _ := badRequest(t, got)
				if fmt.Sprint(v) != fmt.Sprint([]string{want}) {
					t.Errorf("%s: violations %q, want %q", target, v, want)
				}
			}
		})
	}
}
