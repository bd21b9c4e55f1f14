package protorest_test

import (
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// TestResponseHook: a hook sees the response as the program's type,
// in-process and remote (decoded from the backend's bytes), with the
// header metadata; it sets cookies, chooses the status (a redirect from
// x-http-code metadata, grpc-gateway's classic example), removes headers,
// or fails the response. Errors from the method never reach it; a server
// stream calls it once, with its first message, or nil when it has none.
func TestResponseHook(t *testing.T) {
	t.Parallel()
	// hookCalls counts the hook's calls for requests marked with an
	// X-Test-Kind header, by its value: the subtests run in parallel.
	var hookCalls sync.Map // kind → *atomic.Int32
	hook := func(w http.ResponseWriter, r *http.Request, resp proto.Message, header metadata.MD) error {
		if resp == nil { // a stream that starts with no message
			w.Header().Set("X-Empty", "yes")
			return nil
		}
		p, ok := resp.(*confv1.Probe)
		if !ok {
			return status.Errorf(codes.Internal, "hook got %T", resp)
		}
		if kind := r.Header.Get("X-Test-Kind"); kind != "" {
			n, _ := hookCalls.LoadOrStore(kind, new(atomic.Int32))
			n.(*atomic.Int32).Add(1)
		}
		if strings.HasPrefix(p.GetName(), "forbidden") {
			return status.Error(codes.PermissionDenied, "the hook says no")
		}
		http.SetCookie(w, &http.Cookie{Name: "last", Value: p.GetName()})
		if code := header.Get("x-http-code"); len(code) > 0 {
			n, err := strconv.Atoi(code[0])
			if err != nil {
				return err
			}
			w.Header().Del("Grpc-Metadata-X-Http-Code")
			w.Header().Set("Location", "/v1/probes/next")
			w.WriteHeader(n)
		}
		if _, err := w.Write([]byte("x")); !errors.Is(err, http.ErrBodyNotAllowed) {
			return status.Errorf(codes.Internal, "hook's Write: %v", err)
		}
		return nil
	}
	second := func(w http.ResponseWriter, _ *http.Request, _ proto.Message, _ metadata.MD) error {
		w.Header().Set("X-Second", strings.Join(w.Header().Values("Set-Cookie"), ";"))
		return nil
	}
	urls := optionGateways(t, protorest.WithResponseHook(hook), protorest.WithResponseHook(second))
	for _, kind := range slices.Sorted(maps.Keys(urls)) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			base := urls[kind]
			tests := []struct {
				name, path           string
				code                 int
				body, cookie, header string
			}{
				{"plain", "/v1/probes/p", 200, `{"name":"p"}`, "last=p", ""},
				{"created", "/v1/probes/status-201", 201, `{"name":"status-201"}`, "last=status-201", "/v1/probes/next"},
				{"not modified", "/v1/probes/status-304", 304, ``, "last=status-304", "/v1/probes/next"},
				{"bad status", "/v1/probes/status-42", 500, `{"code":13,"message":"a response hook chose HTTP status 42","details":[]}`, "last=status-42", "/v1/probes/next"},
				{"hook error", "/v1/probes/forbidden", 403, `{"code":7,"message":"the hook says no","details":[]}`, "", ""},
				{"method error", "/v1/probes/denied", 403, `{"code":7,"message":"no","details":[]}`, "", ""},
			}
			for _, tt := range tests {
				got := fetch(t, "GET", base+tt.path, "")
				if got.code != tt.code || got.body != tt.body {
					t.Errorf("%s: %d %s\nwant %d %s", tt.name, got.code, got.body, tt.code, tt.body)
				}
				if c := got.header.Get("Set-Cookie"); c != tt.cookie {
					t.Errorf("%s: Set-Cookie %q, want %q", tt.name, c, tt.cookie)
				}
				if tt.cookie != "" && got.header.Get("X-Second") != tt.cookie {
					t.Errorf("%s: the second hook saw Set-Cookie %q, want %q", tt.name, got.header.Get("X-Second"), tt.cookie)
				}
				if loc := got.header.Get("Location"); loc != tt.header {
					t.Errorf("%s: Location %q, want %q", tt.name, loc, tt.header)
				}
				if v := got.header.Get("Grpc-Metadata-X-Http-Code"); v != "" {
					t.Errorf("%s: Grpc-Metadata-X-Http-Code %q, which the hook deleted", tt.name, v)
				}
			}
			noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			res, err := noRedirect.Get(base + "/v1/probes/status-302")
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/v1/probes/next" {
				t.Errorf("redirect: %d, Location %q", res.StatusCode, res.Header.Get("Location"))
			}

			// A server stream: once, with its first message, before the
			// response starts.
			got := fetch(t, "GET", base+"/v1/watch/w?i32=3", "", "X-Test-Kind", kind)
			if got.code != 200 || got.header.Get("Set-Cookie") != "last=w-1" || got.header.Get("Grpc-Metadata-X-Watch") != "yes" {
				t.Errorf("stream: %d %q %v", got.code, got.body, got.header)
			}
			n, _ := hookCalls.LoadOrStore(kind, new(atomic.Int32))
			if n := n.(*atomic.Int32).Load(); n != 1 {
				t.Errorf("stream of 3 messages: %d hook calls, want 1", n)
			}
			got = fetch(t, "GET", base+"/v1/watch/none?i32=0", "")
			if got.code != 200 || got.header.Get("X-Empty") != "yes" {
				t.Errorf("stream with no message: %d %q %v", got.code, got.body, got.header)
			}
			// The hook failing on the first message is an ordinary error.
			got = fetch(t, "GET", base+"/v1/watch/forbidden?i32=2", "")
			if want := `{"code":7,"message":"the hook says no","details":[]}`; got.code != 403 || got.body != want {
				t.Errorf("hook error on a stream: %d %s\nwant 403 %s", got.code, got.body, want)
			}
		})
	}
}

// TestResponseHookContentType: a hook may set the Content-Type of a
// response with one message, as grpc-gateway's forward-response options
// do (its integration test sets application/vnd.docker.plugins.v1.1+json,
// the Docker plugin API's type); the body is still the gateway's JSON and
// its Content-Length the gateway's. Without the hook's, the type is the
// codec's; a server stream's stays its framing's, as in grpc-gateway.
func TestResponseHookContentType(t *testing.T) {
	t.Parallel()
	const docker = "application/vnd.docker.plugins.v1.1+json"
	hook := func(w http.ResponseWriter, r *http.Request, _ proto.Message, _ metadata.MD) error {
		if v := r.Header.Get("X-Test-Type"); v != "" {
			w.Header().Set("Content-Type", v)
		}
		return nil
	}
	urls := optionGateways(t, protorest.WithResponseHook(hook))
	for _, kind := range slices.Sorted(maps.Keys(urls)) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			base := urls[kind]
			got := fetch(t, "GET", base+"/v1/probes/p", "", "X-Test-Type", docker)
			if got.code != 200 || got.body != `{"name":"p"}` || got.header.Get("Content-Type") != docker ||
				got.header.Get("Content-Length") != strconv.Itoa(len(got.body)) {
				t.Errorf("hook's type: %d %q %v", got.code, got.body, got.header)
			}
			got = fetch(t, "GET", base+"/v1/probes/p", "")
			if got.code != 200 || got.header.Get("Content-Type") != "application/json" {
				t.Errorf("no hook's type: %d %q %v", got.code, got.body, got.header)
			}
			got = fetch(t, "GET", base+"/v1/watch/w?i32=2", "", "X-Test-Type", docker)
			if got.code != 200 || got.header.Get("Content-Type") != "application/json" {
				t.Errorf("stream: %d %q %v", got.code, got.body, got.header)
			}
		})
	}
}

// BenchmarkResponseHook measures what a hook adds to a unary call,
// in-process (nothing but the call) and remote (the response decoded from
// the backend's bytes for the hook, which the wire path otherwise skips).
func BenchmarkResponseHook(b *testing.B) {
	hook := func(w http.ResponseWriter, _ *http.Request, resp proto.Message, _ metadata.MD) error {
		if resp.(*confv1.Probe).GetName() == "" {
			return status.Error(codes.Internal, "no name")
		}
		return nil
	}
	for _, kind := range []string{"in-process", "remote"} {
		for _, hooked := range []bool{false, true} {
			var opts []protorest.Option
			name := kind + "/none"
			if hooked {
				opts, name = append(opts, protorest.WithResponseHook(hook)), kind+"/hook"
			}
			gw := probesGateway(b, kind, metadataProbes{newStreamer()}, opts...)
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					w := httptest.NewRecorder()
					gw.ServeHTTP(w, httptest.NewRequest("GET", "/v1/probes/abc?tags=a&tags=b", nil))
					if w.Code != http.StatusOK {
						b.Fatalf("status %d: %s", w.Code, w.Body)
					}
				}
			})
		}
	}
}
