package validateprotorest_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden OpenAPI document of the rules fixture")

// goldenDocument is the fixture's OpenAPI document, in the repository's
// golden documents (kin-openapi checks every one: internal/tools/openapicheck).
var goldenDocument = filepath.Join("..", "testdata", "openapi", "validate-rules.json")

// TestOpenAPIConstraints: the rules of the fixture are in its OpenAPI
// document as JSON Schema keywords, and the rest under x-buf-validate;
// the document is the same whether the service is in-process (generated
// descriptors) or remote (from reflection, and with the rules as unknown
// option bytes), and it is the golden one.
func TestOpenAPIConstraints(t *testing.T) {
	var docs [][]byte
	for _, s := range setups {
		url, _ := s.start(t)
		resp, err := http.Get(url + "/openapi.json")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", s.name, resp.StatusCode, err)
		}
		docs = append(docs, b)
	}
	for i, d := range docs[1:] {
		if !bytes.Equal(d, docs[0]) {
			t.Errorf("%s's document differs from %s's", setups[i+1].name, setups[0].name)
		}
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, docs[0], "", "  "); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(goldenDocument, indented.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if want, err := os.ReadFile(goldenDocument); err != nil || !bytes.Equal(indented.Bytes(), want) {
		t.Errorf("%s is stale or missing (%v): review the change, then run scripts/genopenapi.sh", goldenDocument, err)
	}

	var doc struct {
		Paths      map[string]map[string]json.RawMessage
		Components struct{ Schemas map[string]json.RawMessage }
	}
	if err := json.Unmarshal(docs[0], &doc); err != nil {
		t.Fatal(err)
	}
	compact := func(raw json.RawMessage) string {
		var b bytes.Buffer
		json.Compact(&b, raw)
		return b.String()
	}
	check := compact(doc.Components.Schemas["rules.v1.CheckRequest"])
	for _, want := range []string{
		`"name":{"type":"string","pattern":"^[a-z0-9-]+$","minLength":3}`,
		`"emailAddress":{"anyOf":[{"const":""},{"type":"string","format":"email"}]}`,
		`"data":{"type":"string","contentEncoding":"base64","x-buf-validate":[{"id":"bytes.max_len","value":"4"}]}`,
		`"count":{"type":"integer","format":"int32","minimum":0,"maximum":100}`,
		`"ratio":{"anyOf":[{"const":0},{"type":"number","format":"double","exclusiveMinimum":0,"exclusiveMaximum":1}]}`,
		`"color":{"enum":["COLOR_UNSPECIFIED","COLOR_RED","COLOR_GREEN"],"allOf":[{"$ref":"#/components/schemas/rules.v1.Color"}]}`,
		`"tags":{"type":"array","items":{"type":"string","minLength":1},"maxItems":3,"uniqueItems":true}`,
		`"labels":{"type":"object","maxProperties":2,"additionalProperties":{"type":"integer","format":"int32","exclusiveMinimum":0},"propertyNames":{"type":"string","minLength":2}}`,
		`"limit":{"anyOf":[{"type":"integer","format":"int32","minimum":1},{"type":"null"}]}`,
		`"url":{"type":"string","format":"uri"}`,
		`"code":{"type":"string","x-buf-validate":[{"id":"code.upper","message":"code must be upper case","expression":"this.matches('^[A-Z]*$')"}]}`,
		`"anyOf":[{"required":["url"]},{"required":["targetId"]}]`,
		`"x-buf-validate":[{"id":"check.range","message":"low must not exceed high","expression":"this.low <= this.high"}]`,
	} {
		if !strings.Contains(check, want) {
			t.Errorf("CheckRequest's schema lacks %s", want)
		}
	}
	if at := compact(doc.Components.Schemas["rules.v1.CheckRequest"]); !strings.Contains(at, `"at":{"anyOf":[{"type":"string","format":"date-time","x-buf-validate":[{"id":"timestamp.gt","value":"1970-01-01T00:00:00Z"}]},{"type":"null"}]}`) {
		t.Errorf("the timestamp rule is not in x-buf-validate: %s", at)
	}
	get := compact(doc.Paths["/v1/checks/{name}"]["get"])
	for _, want := range []string{
		`{"name":"name","in":"path","required":true,"schema":{"type":"string","pattern":"^[a-z0-9-]+$","minLength":3}}`,
		`{"name":"count","in":"query","schema":{"type":"integer","format":"int32","minimum":0,"maximum":100}}`,
	} {
		if !strings.Contains(get, want) {
			t.Errorf("GET /v1/checks/{name} lacks %s: %s", want, get)
		}
	}
}
