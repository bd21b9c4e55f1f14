package main

import (
	"strings"
	"testing"

	"github.com/protorest/protorest/internal/tools/protogen/generate"
)

// TestGeneratedCodeIsFresh regenerates every generated file into memory
// and fails if a committed file differs or is missing: run
// scripts/genconformance.sh after changing the suite's version or a
// plugin's.
func TestGeneratedCodeIsFresh(t *testing.T) {
	out, files, err := suite.Generate(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// protoc-gen-go writes one file per .proto; protoc-gen-go-grpc one
	// per file with a service (service.proto).
	if want := len(suite.Files) + 1; len(files) != want {
		t.Errorf("generated %d files, want %d", len(files), want)
	}
	for _, line := range generate.Stale(out, files) {
		t.Errorf("%s: run %s", line, suite.Script)
	}
}

// TestGoPackages checks the M options that give the suite's files a Go
// package: one per file, after the plugin's own parameter.
func TestGoPackages(t *testing.T) {
	got := suite.goPackages("features=x")
	parts := strings.Split(got, ",")
	if len(parts) != len(suite.Files)+1 || parts[0] != "features=x" {
		t.Fatalf("goPackages = %q", got)
	}
	for i, f := range suite.Files {
		if want := "M" + f + "=" + suite.GoPackage; parts[i+1] != want {
			t.Errorf("option %d = %q, want %q", i, parts[i+1], want)
		}
	}
}
