package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden documents of ../../testdata/openapi")

// The demo's document is a golden file (indented): a change to the
// mapping or to the demo shows in review.
func TestDemoOpenAPIGolden(t *testing.T) {
	t.Parallel()
	gw, err := newDemoGateway()
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := json.Indent(&got, gw.OpenAPI(), "", "  "); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "testdata", "openapi", "demo.json")
	if *update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run scripts/genopenapi.sh)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("%s is stale: the demo's document changed (review the change, then run scripts/genopenapi.sh)", path)
	}
	for _, route := range []string{`"/openapi.json"`, `"/openapi.yaml"`, `"/files/{id}"`, `"/v1/shelves/{shelf}/books/{book}"`} {
		if !bytes.Contains(want, []byte(route)) {
			t.Errorf("the demo's document lacks %s", route)
		}
	}
}

func TestOpenAPICommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		code   int
		output string // a part of stdout, or of the --output file
		stderr string
	}{
		{name: "json", args: []string{"--import-path", "../../examples", "--proto", "library/v1/library.proto", "--openapi-title", "Library"},
			output: `"summary": "CreateShelf creates a shelf."`},
		{name: "yaml to a file", args: []string{"--import-path", "../../examples", "--proto", "library/v1/library.proto", "--format", "yaml",
			"--proto-names", "--success-status", "library.v1.LibraryService/CreateBook=201", "--output", filepath.Join(dir, "lib.yaml")},
			output: "\"201\":"},
		{name: "no descriptors", code: 2, stderr: "give --proto or --descriptor-set"},
		{name: "both sources", args: []string{"--proto", "a.proto", "--descriptor-set", "b.binpb"}, code: 2, stderr: "alternatives"},
		{name: "bad format", args: []string{"--proto", "a.proto", "--format", "xml"}, code: 2, stderr: "flag -format"},
		{name: "a file that does not compile", args: []string{"--proto", "nope.proto"}, code: 1, stderr: "nope.proto"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"openapi"}, tt.args...), &stdout, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.stderr) {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.code, stderr.String())
			}
			out := stdout.String()
			if i := slices.Index(tt.args, "--output"); i >= 0 {
				b, err := os.ReadFile(tt.args[i+1])
				if err != nil {
					t.Fatal(err)
				}
				out = string(b)
			}
			if !strings.Contains(out, tt.output) {
				t.Errorf("output lacks %s:\n%.300s", tt.output, out)
			}
		})
	}
}

func TestServeOpenAPIFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string // a part of the error, or "" for none
	}{
		{args: []string{"--upstream", "x:1"}},
		{args: []string{"--upstream", "x:1", "--openapi-path", "/api/spec"}},
		{args: []string{"--upstream", "x:1", "--openapi-path", "api"}, want: "must start with /"},
		{args: []string{"--upstream", "x:1", "--openapi-path", ""}, want: "--openapi-path is empty"},
		{args: []string{"--upstream", "x:1", "--openapi=false", "--openapi-path", ""}},
		{args: []string{"--upstream", "x:1", "--health-path", "/openapi.json"}, want: "--health-path and --openapi-path"},
	} {
		_, err := parseServeFlags(tt.args, func(string) (string, bool) { return "", false }, &bytes.Buffer{})
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.want)
		}
	}
}
