package protorest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// TestErrorCodes covers C186–C202: every gRPC code maps to its HTTP
// status with a google.rpc.Status body.
func TestErrorCodes(t *testing.T) {
	t.Parallel()
	want := map[codes.Code]int{
		codes.Canceled: 499, codes.Unknown: 500, codes.InvalidArgument: 400, codes.DeadlineExceeded: 504,
		codes.NotFound: 404, codes.AlreadyExists: 409, codes.PermissionDenied: 403, codes.ResourceExhausted: 429,
		codes.FailedPrecondition: 400, codes.Aborted: 409, codes.OutOfRange: 400, codes.Unimplemented: 501,
		codes.Internal: 500, codes.Unavailable: 503, codes.DataLoss: 500, codes.Unauthenticated: 401,
		codes.Code(1024): 500,
	}
	for code, httpStatus := range want {
		t.Run(code.String(), func(t *testing.T) {
			t.Parallel()
			rec := &recorder{reply: func(string, proto.Message) (proto.Message, error) {
				return nil, status.Error(code, "m \"quoted\"")
			}}
			resp := do(t, newFixture(t, "A", rec), "GET", "/v1/probes/abc", "")
			if resp.code != httpStatus {
				t.Errorf("status %d, want %d", resp.code, httpStatus)
			}
			wantBody := fmt.Sprintf(`{"code":%d,"message":"m \"quoted\"","details":[]}`, code)
			if resp.body != wantBody {
				t.Errorf("body %s, want %s", resp.body, wantBody)
			}
			if code == codes.Unauthenticated && resp.header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}

func TestErrorDetailsAndWrapping(t *testing.T) {
	t.Parallel()
	st, err := status.New(codes.InvalidArgument, "bad name").WithDetails(&errdetails.BadRequest{
		FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "name", Description: "required"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		err  error
		code int
		body string
	}{
		{"C205 details", st.Err(), 400, `{"code":3,"message":"bad name","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"name","description":"required"}]}]}`},
		{"wrapped status", fmt.Errorf("ctx: %w", status.Error(codes.NotFound, "gone")), 404, `{"code":5,"message":"ctx: rpc error: code = NotFound desc = gone","details":[]}`},
		{"plain error", errors.New("plain"), 500, `{"code":2,"message":"plain","details":[]}`},
		{"deadline", context.DeadlineExceeded, 504, `{"code":4,"message":"context deadline exceeded","details":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{reply: func(string, proto.Message) (proto.Message, error) { return nil, tt.err }}
			resp := do(t, newFixture(t, "A", rec), "GET", "/v1/probes/abc", "")
			if resp.code != tt.code || resp.body != tt.body {
				t.Errorf("got %d %s\nwant %d %s", resp.code, resp.body, tt.code, tt.body)
			}
		})
	}
}

func TestPanicBecomes500(t *testing.T) {
	t.Parallel()
	var hooked any
	rec := &recorder{reply: func(string, proto.Message) (proto.Message, error) { panic("boom") }}
	gw := newFixture(t, "A", rec, protorest.WithPanicHook(func(_ string, v any, _ []byte) { hooked = v }))
	resp := do(t, gw, "GET", "/v1/probes/abc", "")
	if resp.code != 500 || !strings.Contains(resp.body, `"code":13`) || hooked != "boom" {
		t.Errorf("status %d body %s hooked %v", resp.code, resp.body, hooked)
	}
}

type panickyCodec struct{}

func (panickyCodec) Marshal(proto.Message) ([]byte, error) { panic("codec bug") }
func (panickyCodec) Unmarshal([]byte, proto.Message) error { return nil }

// TestPanicOutsideTheHandlerBecomes500: a panic in the gateway's own path
// (here a codec's) is a 500 Status and a report, not a dropped connection.
func TestPanicOutsideTheHandlerBecomes500(t *testing.T) {
	t.Parallel()
	var hooked any
	var method string
	rec := &recorder{}
	gw := newFixture(t, "A", rec, protorest.WithCodec("application/x-panic", panickyCodec{}),
		protorest.WithPanicHook(func(m string, v any, _ []byte) { method, hooked = m, v }))
	srv := httptest.NewServer(gw)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/v1/probes/abc", nil)
	req.Header.Set("Accept", "application/x-panic")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the connection was dropped: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(string(body), `"code":13`) || hooked != "codec bug" || !strings.HasSuffix(method, "/GetProbe") {
		t.Errorf("status %d body %s hooked %v in %q", resp.StatusCode, body, hooked, method)
	}
}

func TestErrorHandler(t *testing.T) {
	t.Parallel()
	h := func(w http.ResponseWriter, r *http.Request, err error) {
		st := status.Convert(err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(protorest.HTTPStatus(err))
		fmt.Fprintf(w, `{"error":{"code":%q,"message":%q}}`, st.Code().String(), st.Message())
	}
	rec := &recorder{reply: func(string, proto.Message) (proto.Message, error) {
		return nil, status.Error(codes.InvalidArgument, "no")
	}}
	gw := newFixture(t, "A", rec, protorest.WithErrorHandler(h))
	tests := []struct {
		method, target, want string
		code                 int
	}{
		{"GET", "/v1/probes/x", `{"error":{"code":"InvalidArgument","message":"no"}}`, 400},
		{"GET", "/nope", `{"error":{"code":"NotFound","message":"Not Found"}}`, 404},
		{"POST", "/v1/probes/x", `{"error":{"code":"Unimplemented","message":"Method Not Allowed"}}`, 405},
	}
	for _, tt := range tests {
		if resp := do(t, gw, tt.method, tt.target, ""); resp.code != tt.code || resp.body != tt.want {
			t.Errorf("%s %s: %d %s", tt.method, tt.target, resp.code, resp.body)
		}
	}
}

// TestUnresolvableDetails: a detail whose type the gateway's types do not
// know is written with its @type and base64 value, not dropped or failed.
func TestUnresolvableDetails(t *testing.T) {
	t.Parallel()
	st, _ := status.New(codes.FailedPrecondition, "no").WithDetails(&errdetails.ErrorInfo{Reason: "R"})
	rec := &recorder{reply: func(string, proto.Message) (proto.Message, error) { return nil, st.Err() }}
	gw := newFixture(t, "A", rec, protorest.WithTypes(new(protoregistry.Types)))
	resp := do(t, gw, "GET", "/v1/probes/abc", "")
	want := `{"code":9,"message":"no","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","value":"CgFS"}]}`
	if resp.code != 400 || resp.body != want {
		t.Errorf("got %d %s\nwant %s", resp.code, resp.body, want)
	}
}

func TestStreamHandlerPanic(t *testing.T) {
	t.Parallel()
	var hooked any
	gw := protorest.NewGateway(protorest.WithPanicHook(func(_ string, v any, _ []byte) { hooked = v }),
		protorest.WithStreamInterceptors(func(any, grpc.ServerStream, *grpc.StreamServerInfo, grpc.StreamHandler) error { panic("stream boom") }))
	confv1.RegisterProbesServer(gw, newStreamer())
	if r := do(t, gw, "GET", "/v1/watch/w?i32=1", ""); r.code != 500 || !strings.Contains(r.body, `"code":13`) || hooked != "stream boom" {
		t.Errorf("%d %s, hooked %v", r.code, r.body, hooked)
	}
}

// TestRoutingErrorHandler: requests no route matches (404, 405 with its
// Allow header) go to the routing error handler; errors of a matched
// route do not.
func TestRoutingErrorHandler(t *testing.T) {
	t.Parallel()
	routing := func(w http.ResponseWriter, r *http.Request, err error) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(protorest.HTTPStatus(err))
		fmt.Fprintf(w, "no route for %s %s (%s)", r.Method, r.URL.Path, status.Code(err))
	}
	urls := optionGateways(t, protorest.WithRoutingErrorHandler(routing))
	for _, kind := range slices.Sorted(maps.Keys(urls)) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			for _, tt := range []struct {
				method, path string
				code         int
				body, allow  string
			}{
				{"GET", "/v1/nowhere", 404, "no route for GET /v1/nowhere (NotFound)", ""},
				{"DELETE", "/v1/probes", 405, "no route for DELETE /v1/probes (Unimplemented)", "GET, POST"},
				{"GET", "/v1/probes/denied", 403, `{"code":7,"message":"no","details":[]}`, ""},
			} {
				got := fetch(t, tt.method, urls[kind]+tt.path, "")
				if got.code != tt.code || got.body != tt.body || got.header.Get("Allow") != tt.allow {
					t.Errorf("%s %s: %d %q Allow %q\nwant %d %q Allow %q", tt.method, tt.path, got.code, got.body, got.header.Get("Allow"), tt.code, tt.body, tt.allow)
				}
			}
		})
	}
}

// TestStreamErrorHandler: the handler's status replaces an error that
// ends a started stream, in-band, in the trailers and in a WebSocket's
// close frame; an error before the stream starts is an ordinary error
// response with the handler's status; the gateway's own errors with an
// HTTP status of their own (a limit) never reach it.
func TestStreamErrorHandler(t *testing.T) {
	t.Parallel()
	hide := func(r *http.Request, err error) *status.Status {
		switch status.Code(err) {
		case codes.Internal:
			return status.New(codes.Internal, "internal error on "+r.URL.Path)
		case codes.NotFound:
			return nil // the error's own
		}
		return status.New(codes.Unknown, "the handler saw "+status.Code(err).String())
	}
	urls, _ := streamGateways(t, protorest.WithStreamErrorHandler(hide), protorest.WithMaxMetadataBytes(1000))
	for _, kind := range slices.Sorted(maps.Keys(urls)) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			base := urls[kind]
			got := fetch(t, "GET", base+"/v1/watch/fail-after?i32=1", "")
			want := `{"result":{"name":"fail-after-1","i32":1}}` + "\n" + `{"error":{"code":13,"message":"internal error on /v1/watch/fail-after","details":[]}}` + "\n"
			if got.code != 200 || got.body != want {
				t.Errorf("in-band: %d %s\nwant 200 %s", got.code, got.body, want)
			}
			got = fetch(t, "GET", base+"/v1/watch/fail-after?i32=1", "", "TE", "trailers", "Accept", "application/x-ndjson")
			if m := got.trailer.Get("Grpc-Message"); m != "internal error on /v1/watch/fail-after" {
				t.Errorf("Grpc-Message trailer %q", m)
			}
			got = fetch(t, "GET", base+"/v1/watch/fail-before", "")
			if want := `{"code":5,"message":"no such watch","details":[{"@type":"type.googleapis.com/google.rpc.ResourceInfo","resourceName":"fail-before"}]}`; got.code != 404 || got.body != want {
				t.Errorf("before the start: %d %s\nwant 404 %s", got.code, got.body, want)
			}

			got = fetch(t, "GET", base+"/v1/watch/big?i32=1", "", "Grpc-Metadata-X", strings.Repeat("x", 1200))
			if got.code != http.StatusRequestHeaderFieldsTooLarge {
				t.Errorf("metadata over the limit: %d %s, want 431", got.code, got.body)
			}
			got = fetch(t, "GET", base+"/v1/watch/w?i32=1", "", "Grpc-Timeout", "bogus")
			if want := `{"code":2,"message":"the handler saw InvalidArgument","details":[]}`; got.code != 500 || got.body != want {
				t.Errorf("an error before the start: %d %s\nwant 500 %s", got.code, got.body, want)
			}

			c := wsDial(t, base+"/v1/watch/fail-after?i32=1", nil)
			if _, _, err := wsRead(t, c); err != nil {
				t.Fatal(err)
			}
			wsClosed(t, c, 4000+13, "internal error on /v1/watch/fail-after")
			c = wsDial(t, base+"/v1/watch/big?i32=1", http.Header{"Grpc-Metadata-X": {strings.Repeat("x", 1200)}})
			wsClosed(t, c, 4000+8, "request metadata larger than the limit of 1000 bytes")
		})
	}
}
