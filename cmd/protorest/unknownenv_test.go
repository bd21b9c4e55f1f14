package main

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

func TestUnknownVariables(t *testing.T) {
	t.Parallel()
	environ := []string{
		"PATH=/bin", "PROTOREST_UPSTREAM=app:1", "PROTOREST_OUTPUT=x.json",
		"PROTOREST_UPSTREM=app:1", "PROTOREST_UPSTREAM_TSL=true", "protorest_listen=:1", "PROTOREST_LISTN=:1",
		"PROTOREST_MAX_BODY=1MiB", "PROTOREST_WHATEVER=1", "PROTOREST_=", "PROTORESTX=1", "PROTOREST_STREAM_MIB=1024",
	}
	got := unknownVariables(environ, protorestVariables())
	want := []unknownVariable{
		{"PROTOREST_UPSTREM", "PROTOREST_UPSTREAM"},
		{"PROTOREST_UPSTREAM_TSL", "PROTOREST_UPSTREAM_TLS"},
		{"protorest_listen", "PROTOREST_LISTEN"},
		{"PROTOREST_LISTN", "PROTOREST_LISTEN"},
		{"PROTOREST_MAX_BODY", ""},
		{"PROTOREST_WHATEVER", ""},
		{"PROTOREST_", ""},
		{"PROTOREST_STREAM_MIB", ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("unknownVariables:\n got %v\nwant %v", got, want)
	}
	if s := want[1].String(); s != "PROTOREST_UPSTREAM_TSL is not a protorest variable, ignored; did you mean PROTOREST_UPSTREAM_TLS?" {
		t.Errorf("String: %q", s)
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"abc", "abc", 0},
		{"TSL", "TLS", 1}, {"UPSTREM", "UPSTREAM", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3},
	} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestServeWarnsUnknownVariables runs serve and openapi with misspelt
// variables in the environment: a warning names each and the variable
// meant; when the command stops on a usage error, its one line does.
func TestServeWarnsUnknownVariables(t *testing.T) { // not parallel: t.Setenv
	t.Setenv("PROTOREST_UPSTREAM_TSL", "true")
	s := startServe(t, "--upstream", freeAddr(t), "--log-format", "json")
	if out := s.stderr.String(); !strings.Contains(out, `"level":"WARN","msg":"not a protorest variable, ignored","variable":"PROTOREST_UPSTREAM_TSL","did_you_mean":"PROTOREST_UPSTREAM_TLS"}`) {
		t.Errorf("no warning of PROTOREST_UPSTREAM_TSL: %s", out)
	}

	t.Setenv("PROTOREST_UPSTREM", "localhost:1")
	var stdout, stderr syncBuffer
	code := run(context.Background(), []string{"serve"}, &stdout, &stderr)
	got := stderr.String()
	if code != 2 || !strings.HasPrefix(got, "protorest serve: --upstream is required (") || strings.Count(got, "\n") != 1 ||
		!strings.Contains(got, "PROTOREST_UPSTREM is not a protorest variable, ignored; did you mean PROTOREST_UPSTREAM?") ||
		!strings.Contains(got, "PROTOREST_UPSTREAM_TSL is not a protorest variable, ignored; did you mean PROTOREST_UPSTREAM_TLS?") {
		t.Errorf("exit %d, stderr %q; want 2 and one line naming both variables", code, got)
	}

	var doc, warnings syncBuffer
	code = run(context.Background(), []string{"openapi", "--import-path", "../..", "--proto", "examples/example/v1/example.proto"}, &doc, &warnings)
	if out := warnings.String(); code != 0 || !strings.Contains(out, "protorest openapi: warning: PROTOREST_UPSTREM is not a protorest variable, ignored; did you mean PROTOREST_UPSTREAM?\n") || !strings.Contains(doc.String(), `"openapi": "3.1`) {
		t.Errorf("openapi: exit %d, stderr %q", code, out)
	}
}
