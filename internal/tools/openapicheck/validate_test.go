package openapicheck

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"gopkg.in/yaml.v3"
)

const goldenDir = "../../../testdata/openapi"

func goldenFiles(t *testing.T, ext string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(goldenDir, "*"+ext))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s documents under %s: %v", ext, goldenDir, err)
	}
	return files
}

// Every golden document, JSON and YAML, loads and validates with
// kin-openapi: structure, references, path parameters, unique operation
// IDs, and schemas.
func TestGoldenDocumentsValidate(t *testing.T) {
	t.Parallel()
	files := append(goldenFiles(t, ".json"), goldenFiles(t, ".yaml")...)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			loader := openapi3.NewLoader()
			doc, err := loader.LoadFromData(data)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if doc.OpenAPI != "3.1.0" {
				t.Errorf("openapi %q", doc.OpenAPI)
			}
			if err := doc.Validate(context.Background()); err != nil {
				t.Fatalf("validate: %v", err)
			}
			if doc.Paths.Len() == 0 {
				t.Error("no paths")
			}
		})
	}
}

// kin-openapi catches what the document must not have: this is the check
// that the validation above is not vacuous.
func TestValidationCatchesMistakes(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(goldenDir, "demo.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, old, new string }{
		{"a path parameter not declared", `"name": "id",`, `"name": "fileId",`},
		{"a dangling reference", `"#/components/schemas/library.v1.Book"`, `"#/components/schemas/library.v1.Nope"`},
	} {
		broken := strings.Replace(string(data), c.old, c.new, 1)
		if broken == string(data) {
			t.Fatalf("%s: %s is not in demo.json", c.name, c.old)
		}
		doc, err := openapi3.NewLoader().LoadFromData([]byte(broken))
		if err == nil {
			err = doc.Validate(context.Background())
		}
		if err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// A YAML document reads back, with a YAML parser, as the same value as
// its JSON twin.
func TestYAMLRoundTrip(t *testing.T) {
	t.Parallel()
	for _, path := range goldenFiles(t, ".yaml") {
		twin := strings.TrimSuffix(path, ".yaml") + ".json"
		y, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		j, err := os.ReadFile(twin)
		if err != nil {
			t.Fatal(err)
		}
		var fromYAML, fromJSON any
		if err := yaml.Unmarshal(y, &fromYAML); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := json.Unmarshal(j, &fromJSON); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(normalize(t, fromYAML), fromJSON) {
			t.Errorf("%s does not read back as %s", filepath.Base(path), filepath.Base(twin))
		}
	}
}

// normalize passes v through JSON, so that YAML's integers compare with
// JSON's numbers.
func normalize(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
