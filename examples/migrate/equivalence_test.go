package main

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// A probe is one request of TestEquivalence, and the grpc-gateway
// options whose protorest equivalent it exercises.
type probe struct {
	name    string
	covers  []string
	method  string
	path    string
	body    string
	headers []string // name, value pairs
	// known says how protorest's body differs, on purpose: it is
	// grpc-gateway's with each {"error": status} line the status alone
	// (unwrapError). The test fails if the body does not differ, differs
	// otherwise, or anything else does.
	known string
}

// probes run in order on each gateway, each with a backend of its own:
// the login comes before the calls that need its session.
var probes = []probe{
	{name: "proto names, unpopulated fields left out", covers: []string{"WithMarshalerOption"},
		method: "GET", path: "/v1/notes/1"},
	{name: "a message with nothing set", covers: []string{"WithMarshalerOption"},
		method: "GET", path: "/v1/notes/2"},
	{name: "login: the hook sets the session cookie", covers: []string{"WithForwardResponseOption", "WithMarshalerOption"},
		method: "POST", path: "/v1/login", body: `{"user":"ada"}`},
	{name: "the annotator: cookie to authorization, X-Request-Id to metadata", covers: []string{"WithMetadata"},
		method: "GET", path: "/v1/me", headers: []string{"Cookie", "session=token-ada", "X-Request-Id", "r-1"}},
	{name: "no session: 401 with WWW-Authenticate", covers: []string{"WithMetadata"},
		method: "GET", path: "/v1/me", headers: []string{"Cookie", "session=forged"}},
	{name: "the hook: x-http-code metadata to 201 and Location", covers: []string{"WithForwardResponseOption", "WithMetadata"},
		method: "POST", path: "/v1/notes", body: `{"title":"t","tags":["a"],"kind":"KIND_TEXT"}`, headers: []string{"Cookie", "session=token-ada"}},
	{name: "a method's error", covers: []string{"WithMarshalerOption"},
		method: "GET", path: "/v1/notes/9"},
	{name: "no route", covers: []string{"WithRoutingErrorHandler"},
		method: "GET", path: "/v1/nowhere"},
	{name: "wrong method", covers: []string{"WithRoutingErrorHandler"},
		method: "DELETE", path: "/v1/notes/1"},
	{name: "a stream", covers: []string{"WithMarshalerOption"},
		method: "GET", path: "/v1/watch?count=2"},
	{name: "a stream that fails: the stream error handler hides the message", covers: []string{"WithStreamErrorHandler"},
		method: "GET", path: "/v1/watch?count=2&fail=true"},
	{name: "a stream that fails before its first message", covers: []string{"WithStreamErrorHandler"},
		method: "GET", path: "/v1/watch?count=0&fail=true",
		known: `grpc-gateway writes the status in an {"error":…} record, protorest as an ordinary error response: {"code":…}`},
	{name: "POST for a GET route, with X-HTTP-Method-Override and a form body: never honoured",
		covers: []string{"WithDisableHTTPMethodOverride", "WithDisablePathLengthFallback", "WithRoutingErrorHandler"},
		method: "POST", path: "/v1/notes/1", body: "note_id=2",
		headers: []string{"X-HTTP-Method-Override", "GET", "Content-Type", "application/x-www-form-urlencoded"}},
	{name: "health of the server", covers: []string{"WithHealthzEndpoint"},
		method: "GET", path: "/healthz"},
	{name: "health of a service", covers: []string{"WithHealthzEndpoint"},
		method: "GET", path: "/healthz?service=notes.v1.Notes"},
	{name: "health of an unknown service", covers: []string{"WithHealthzEndpoint"},
		method: "GET", path: "/healthz?service=nope"},
	{name: "a custom route", covers: []string{"HandlePath"},
		method: "GET", path: "/v1/hello/ada%20b"},
}

// mappedOptions are the options of the example's grpc-gateway program;
// every one must be covered by some probe.
var mappedOptions = []string{
	"WithMetadata", "WithForwardResponseOption", "WithMarshalerOption",
	"WithRoutingErrorHandler", "WithStreamErrorHandler", "WithHealthzEndpoint", "HandlePath",
	"WithDisableHTTPMethodOverride", "WithDisablePathLengthFallback",
}

// TestEquivalence sends every probe to the grpc-gateway program and to
// the protorest program (remote and in-process), each in front of a real
// gRPC server of its own over loopback, and requires protorest's answer
// to be grpc-gateway's: the status; the headers that matter
// (Content-Type's media type, Set-Cookie, Location, WWW-Authenticate and
// every Grpc-Metadata-* header); and the body: JSON compared as values
// (stream lines one by one), text as bytes. Two known differences are
// normalised: protorest always writes an error's "details" array, where
// grpc-gateway's marshaler, told not to emit unpopulated fields, leaves
// an empty one out; and Grpc-Metadata-Content-Type, the gRPC transport's
// content type that a remote call's header metadata carries (both
// gateways forward it), is not compared: an in-process call has none.
func TestEquivalence(t *testing.T) {
	for _, name := range mappedOptions {
		if !slices.ContainsFunc(probes, func(p probe) bool { return slices.Contains(p.covers, name) }) {
			t.Errorf("no probe covers %s", name)
		}
	}
	answers := map[string][]answer{}
	for _, kind := range []string{"grpc-gateway", "protorest", "protorest-in-process"} {
		url := startGateway(t, kind)
		for _, p := range probes {
			answers[kind] = append(answers[kind], ask(t, url, p))
		}
	}
	for i, p := range probes {
		want := answers["grpc-gateway"][i]
		for _, kind := range []string{"protorest", "protorest-in-process"} {
			got := answers[kind][i]
			diff := got.diff(want)
			switch {
			case p.known != "" && (diff != "body" || !reflect.DeepEqual(got.body, unwrapError(want.body))):
				t.Errorf("%s: %s %s: %q, not the known difference in the body (%s)\n%s: %s\ngrpc-gateway: %s", p.name, p.method, p.path, diff, p.known, kind, got, want)
			case p.known != "":
				t.Logf("%s: known difference: %s\n%s: %s\ngrpc-gateway: %s", p.name, p.known, kind, got, want)
			case diff != "":
				t.Errorf("%s: %s %s: %s\n%s: %s\ngrpc-gateway: %s", p.name, p.method, p.path, diff, kind, got, want)
			}
		}
	}
}

// startGateway starts a gRPC server with a fresh notes service and the
// gateway kind in front of it, and returns the gateway's URL.
func startGateway(t *testing.T, kind string) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	impl := newNotes()
	srv := newServer(impl)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	h, err := newGateway(t.Context(), kind, conn, impl)
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(h)
	t.Cleanup(web.Close)
	return web.URL
}

// An answer is what a gateway answered to a probe, the parts compared.
type answer struct {
	status  int
	headers map[string][]string
	body    any // JSON values (a stream's: one per line), else the text
}

func (a answer) String() string {
	return strings.TrimSpace(strings.Join([]string{http.StatusText(a.status), formatJSON(a.headers), formatJSON(a.body)}, " "))
}

func (a answer) diff(b answer) string {
	switch {
	case a.status != b.status:
		return "status"
	case !reflect.DeepEqual(a.headers, b.headers):
		return "headers"
	case !reflect.DeepEqual(a.body, b.body):
		return "body"
	}
	return ""
}

// comparedHeaders are the response headers an answer keeps, besides
// Grpc-Metadata-*.
var comparedHeaders = []string{"Set-Cookie", "Location", "Www-Authenticate"}

// ask sends p to the gateway at url, without following redirects.
func ask(t *testing.T, url string, p probe) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), p.method, url+p.path, strings.NewReader(p.body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(p.headers); i += 2 {
		req.Header.Add(p.headers[i], p.headers[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{status: res.StatusCode, headers: map[string][]string{}}
	media, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	a.headers["Content-Type"] = []string{media}
	for name, vals := range res.Header {
		if slices.Contains(comparedHeaders, name) || strings.HasPrefix(name, "Grpc-Metadata-") && name != "Grpc-Metadata-Content-Type" {
			a.headers[name] = vals
		}
	}
	a.body = string(raw)
	if media == "application/json" {
		var lines []any
		for line := range bytes.Lines(raw) {
			v, err := decodeJSON(line)
			if err != nil {
				t.Fatalf("%s %s: %v in %s", p.method, p.path, err, raw)
			}
			lines = append(lines, v)
		}
		a.body = lines
	}
	return a
}

// decodeJSON decodes one JSON value, numbers as written, with empty
// "details" arrays (an error's) left out.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	dropEmptyDetails(v)
	return v, nil
}

func dropEmptyDetails(v any) {
	switch v := v.(type) {
	case map[string]any:
		if d, ok := v["details"].([]any); ok && len(d) == 0 {
			delete(v, "details")
		}
		for _, e := range v {
			dropEmptyDetails(e)
		}
	case []any:
		for _, e := range v {
			dropEmptyDetails(e)
		}
	}
}

// unwrapError returns the JSON lines of body with each {"error": status}
// record replaced by the status.
func unwrapError(body any) any {
	lines, ok := body.([]any)
	if !ok {
		return body
	}
	out := make([]any, len(lines))
	for i, line := range lines {
		out[i] = line
		if m, ok := line.(map[string]any); ok && len(m) == 1 && m["error"] != nil {
			out[i] = m["error"]
		}
	}
	return out
}

func formatJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
