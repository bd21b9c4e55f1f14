package protorest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
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

func TestInterceptors(t *testing.T) {
	t.Parallel()
	var trace []string
	mk := func(name string) grpc.UnaryServerInterceptor {
		return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			m, _ := grpc.Method(ctx)
			trace = append(trace, name+" "+info.FullMethod+" "+m)
			return h(ctx, req)
		}
	}
	deny := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if md, _ := metadata.FromIncomingContext(ctx); len(md.Get("authorization")) == 0 {
			return nil, status.Error(codes.Unauthenticated, "Bearer")
		}
		return h(ctx, req)
	}
	rec := &recorder{}
	gw := newFixture(t, "A", rec, protorest.WithUnaryInterceptors(mk("outer"), mk("inner")), protorest.WithUnaryInterceptors(deny))
	resp := do(t, gw, "GET", "/v1/probes/abc", "")
	if resp.code != 401 || resp.header.Get("WWW-Authenticate") != "Bearer" {
		t.Errorf("unauthenticated: %d %v", resp.code, resp.header)
	}
	resp = do(t, gw, "GET", "/v1/probes/abc", "", "Authorization", "Bearer x")
	if resp.code != 200 {
		t.Fatalf("status %d %s", resp.code, resp.body)
	}
	want := []string{
		"outer /conf.v1.Probes/GetProbe /conf.v1.Probes/GetProbe", "inner /conf.v1.Probes/GetProbe /conf.v1.Probes/GetProbe",
		"outer /conf.v1.Probes/GetProbe /conf.v1.Probes/GetProbe", "inner /conf.v1.Probes/GetProbe /conf.v1.Probes/GetProbe",
	}
	if fmt.Sprint(trace) != fmt.Sprint(want) {
		t.Errorf("trace = %q\nwant %q", trace, want)
	}
}

func TestMetadata(t *testing.T) {
	t.Parallel()
	rec := &recorder{reply: func(method string, req proto.Message) (proto.Message, error) {
		return &confv1.Probe{}, nil
	}}
	var ctxSeen context.Context
	capture := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		ctxSeen = ctx
		grpc.SetHeader(ctx, metadata.Pairs("x-req-id", "7", "data-bin", "\x00\x01"))
		grpc.SetTrailer(ctx, metadata.Pairs("x-t", "1"))
		return h(ctx, req)
	}
	gw := newFixture(t, "A", rec, protorest.WithUnaryInterceptors(capture))
	srv := httptest.NewServer(gw)
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/v1/probes/abc", nil)
	req.Header.Set("Grpc-Metadata-Tenant", "t1")
	req.Header.Set("Accept-Language", "fr")
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Grpc-Metadata-Grpc-Status", "0") // spoofed reserved key
	req.Header.Set("X-Forwarded-For", "10.0.0.1")
	req.Header.Set("Grpc-Timeout", "1S")
	req.Header.Set("Te", "trailers")
	req.Header.Set("Connection", "keep-alive")
	req.Header.Add("Grpc-Metadata-Tag", "a")
	req.Header.Add("Grpc-Metadata-Tag", "b")
	req.Header.Add("Grpc-Metadata-Other", "o")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	md := rec.last(t).md
	for k, want := range map[string]string{
		"tenant":                      "t1",
		"grpcgateway-accept-language": "fr",
		"authorization":               "Bearer tok",
		"x-forwarded-for":             "10.0.0.1, 127.0.0.1",
	} {
		if got := md.Get(k); len(got) != 1 || got[0] != want {
			t.Errorf("metadata %s = %q, want %q", k, got, want)
		}
	}
	// Values of several keys share one array: each key keeps its own.
	if got := md.Get("tag"); len(got) != 2 || got[0] != "a" || got[1] != "b" || md.Get("other")[0] != "o" {
		t.Errorf("multi-valued metadata: tag %q, other %q", got, md.Get("other"))
	}
	for _, k := range []string{"grpc-status", "connection", "te", "grpc-timeout"} {
		if got := md.Get(k); len(got) != 0 {
			t.Errorf("metadata %s = %q, want it dropped", k, got)
		}
	}
	if dl, ok := ctxSeen.Deadline(); !ok || time.Until(dl) > time.Second {
		t.Errorf("deadline = %v, %v", dl, ok)
	}
	if p, ok := peer.FromContext(ctxSeen); !ok || !strings.HasPrefix(p.Addr.String(), "127.0.0.1:") {
		t.Errorf("peer = %v", p)
	}
	if got := resp.Header.Get("Grpc-Metadata-X-Req-Id"); got != "7" {
		t.Errorf("Grpc-Metadata-X-Req-Id = %q", got)
	}
	if got := resp.Header.Get("Grpc-Metadata-Data-Bin"); got != "AAE=" {
		t.Errorf("Grpc-Metadata-Data-Bin = %q", got)
	}
	if got := resp.Trailer.Get("Grpc-Trailer-X-T"); got != "1" {
		t.Errorf("trailer Grpc-Trailer-X-T = %q (trailers %v)", got, resp.Trailer)
	}

	// Without "TE: trailers" no trailers, and a Content-Length.
	r2 := do(t, gw, "GET", "/v1/probes/abc", "")
	if r2.header.Get("Content-Length") == "" {
		t.Error("no Content-Length without trailers")
	}
	bad := do(t, gw, "GET", "/v1/probes/abc", "", "Grpc-Timeout", "abc")
	if bad.code != 400 {
		t.Errorf("bad Grpc-Timeout: status %d", bad.code)
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	gw := newFixture(t, "A", rec, protorest.WithMaxRequestBodySize(16))
	resp := do(t, gw, "POST", "/v1/probes", `{"name":"0123456789012345678901234567890"}`)
	if resp.code != 413 || !strings.Contains(resp.body, `"code":8`) {
		t.Errorf("status %d body %s", resp.code, resp.body)
	}
	// Without a Content-Length the limit still holds, and the reader is
	// not drained past it.
	src := &countingReader{n: 1 << 30}
	req := httptest.NewRequest("POST", "/v1/probes", src)
	req.ContentLength = -1
	w := httptest.NewRecorder()
	gw.ServeHTTP(w, req)
	if w.Code != 413 || src.read > 17 {
		t.Errorf("status %d after reading %d bytes", w.Code, src.read)
	}
	if rec.count() != 0 {
		t.Error("the method was called")
	}
	long := strings.Repeat("x", 1<<20)
	resp = do(t, newFixture(t, "A", rec), "POST", "/v1/probes", `{"i32":"`+long+`"}`)
	if resp.code != 400 || len(resp.body) > 400 {
		t.Errorf("status %d, error body of %d bytes", resp.code, len(resp.body))
	}
}

type countingReader struct{ n, read int }

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	r.read += len(p)
	return len(p), nil
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

// TestTrailersHTTP2 checks trailer metadata over HTTP/2 as well as
// HTTP/1.1 (TestMetadata).
func TestTrailersHTTP2(t *testing.T) {
	t.Parallel()
	setTrailer := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		grpc.SetTrailer(ctx, metadata.Pairs("x-t", "2"))
		return h(ctx, req)
	}
	gw := newFixture(t, "A", &recorder{}, protorest.WithUnaryInterceptors(setTrailer))
	srv := httptest.NewUnstartedServer(gw)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/v1/probes/abc", nil)
	req.Header.Set("Te", "trailers")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.ProtoMajor != 2 || resp.StatusCode != 200 {
		t.Fatalf("proto %d status %d err %v: %s", resp.ProtoMajor, resp.StatusCode, err, body)
	}
	if got := resp.Trailer.Get("Grpc-Trailer-X-T"); got != "2" {
		t.Errorf("trailer = %q (trailers %v)", got, resp.Trailer)
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
