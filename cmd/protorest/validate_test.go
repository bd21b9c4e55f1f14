package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/reflection"

	validateexample "github.com/protorest/protorest/validateprotorest/example"
	accountsv1 "github.com/protorest/protorest/validateprotorest/example/accounts/v1"
)

// TestServeValidate: serve checks requests against the protovalidate
// rules of the upstream's descriptors by default, from reflection and
// from --proto files (buf/validate/validate.proto resolving to the copy
// linked in); a request that breaks one gets 400 with a BadRequest naming
// the fields, and never reaches the upstream. --validate=false forwards
// it, and still documents the rules.
func TestServeValidate(t *testing.T) {
	t.Parallel()
	accounts := validateexample.NewAccounts()
	srv := grpc.NewServer()
	accountsv1.RegisterAccountServiceServer(srv, accounts)
	reflection.Register(srv)
	addr := serveGRPC(t, srv)
	const bad = `{"username":"Al","email":"not-an-email","age":7}`
	for _, args := range [][]string{
		{"--upstream", addr},
		{"--upstream", addr, "--import-path", "../../validateprotorest/example", "--proto", "accounts/v1/accounts.proto"},
	} {
		s := startServe(t, args...)
		before := accounts.Calls()
		code, body := s.do(t, "POST", "/v1/accounts", bad)
		if code != 400 || accounts.Calls() != before {
			t.Fatalf("%v: %d %s (%d calls)", args, code, body, accounts.Calls()-before)
		}
		for _, want := range []string{`"@type":"type.googleapis.com/google.rpc.BadRequest"`, `"field":"username"`, `"field":"email"`, `"field":"age"`,
			`"reason":"STRING_PATTERN"`, `"@type":"type.googleapis.com/buf.validate.Violations"`} {
			if !strings.Contains(body, want) {
				t.Errorf("%v: %s lacks %s", args, body, want)
			}
		}
		if code, body := s.do(t, "GET", "/v1/accounts/No", ""); code != 400 || !strings.Contains(body, `"field":"username"`) {
			t.Errorf("%v: GET /v1/accounts/No: %d %s", args, code, body)
		}
	}
	s := startServe(t, "--upstream", addr, "--validate=false")
	before := accounts.Calls()
	if code, body := s.do(t, "POST", "/v1/accounts", bad); code != 200 || accounts.Calls() != before+1 {
		t.Errorf("--validate=false: %d %s (%d calls)", code, body, accounts.Calls()-before)
	}
	// The rules are the upstream's contract: documented, checked or not.
	if code, body := s.do(t, "GET", "/openapi.json", ""); code != 200 || !strings.Contains(body, `"pattern":"^[a-z][a-z0-9_]*$","minLength":3,"maxLength":20`) {
		t.Errorf("--validate=false: the document lacks the username's rules: %d %.300s", code, body)
	}
}

// TestDemoChecksRules: the demo's gateway refuses the requests it prints
// as refused (demoRefusals), and serves the account it prints under Try.
func TestDemoChecksRules(t *testing.T) {
	t.Parallel()
	gw, err := newDemoGateway()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	defer srv.Close()
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/accounts", `{"username":"Al","email":"not-an-email","age":7}`},
		{"GET", "/v1/accounts/No", ""},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(body), "google.rpc.BadRequest") {
			t.Errorf("%s %s: %d %s", c.method, c.path, resp.StatusCode, body)
		}
	}
	resp, err := http.Post(srv.URL+"/v1/accounts", "application/json", strings.NewReader(`{"username":"ada","email":"ada@example.com","age":36}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("a valid account: %d", resp.StatusCode)
	}
}
