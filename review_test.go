package protorest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest"
)

// Regression tests for defects found in review.

func TestResponseBodyNonMessageFields(t *testing.T) {
	t.Parallel()
	files, desc := ruleFiles(t,
		&annotations.HttpRule{Pattern: &annotations.HttpRule_Get{Get: "/v1/scalar"}, ResponseBody: "name"},
		&annotations.HttpRule{Pattern: &annotations.HttpRule_Get{Get: "/v1/list"}, ResponseBody: "items"},
		&annotations.HttpRule{Pattern: &annotations.HttpRule_Get{Get: "/v1/inner"}, ResponseBody: "inner"},
	)
	d, err := files.FindDescriptorByName("t.v1.Req")
	if err != nil {
		t.Fatal(err)
	}
	md := d.(protoreflect.MessageDescriptor)
	reply := dynamicpb.NewMessage(md)
	if err := prototext.Unmarshal([]byte(`name: "n" items {s: "a"} items {s: "b"}`), reply); err != nil {
		t.Fatal(err)
	}
	for i := range desc.Methods {
		desc.Methods[i].Handler = func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			if err := dec(dynamicpb.NewMessage(md)); err != nil {
				return nil, err
			}
			return reply, nil
		}
	}
	gw := protorest.NewGateway(protorest.WithFiles(files))
	gw.RegisterService(desc, nil)
	for target, want := range map[string]string{
		"/v1/scalar": `"n"`,
		"/v1/list":   `[{"s":"a"},{"s":"b"}]`,
		"/v1/inner":  `{"s":""}`, // unset: the empty message, with defaults
	} {
		if resp := do(t, gw, "GET", target, ""); resp.code != 200 || resp.body != want {
			t.Errorf("%s: %d %s, want %s", target, resp.code, resp.body, want)
		}
	}
}

func TestDeclaredLengthIsNotTrusted(t *testing.T) {
	t.Parallel()
	gw := newFixture(t, "A", &recorder{}, protorest.WithMaxRequestBodySize(0))
	req := httptest.NewRequest("POST", "/v1/probes", strings.NewReader(`{"name":"n"}`))
	req.ContentLength = 1 << 50
	w := httptest.NewRecorder()
	gw.ServeHTTP(w, req)
	if w.Code != 200 {
		t.Errorf("status %d: %s", w.Code, w.Body)
	}
}

func TestScalarBodyMustBeOneValue(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	gw := newFixture(t, "A", rec)
	resp := do(t, gw, "POST", "/v1/probes/p:rename", `"x", "id": 7, "name": "evil"`)
	if resp.code != 400 || rec.count() != 0 {
		t.Errorf("status %d, %d calls: %s", resp.code, rec.count(), resp.body)
	}
}

func TestSuccessStatusMustBe2xx(t *testing.T) {
	t.Parallel()
	// The mistake is the gateway's first use's error, not a panic.
	gw := protorest.NewGateway(protorest.WithSuccessStatus("conf.v1.Probes/GetProbe", 0))
	if err := gw.HandlePath("GET", "/x", func(http.ResponseWriter, *http.Request) {}); err == nil || !strings.Contains(err.Error(), "not a success status") {
		t.Errorf("HandlePath: %v", err)
	}
}

func TestTrailersOnErrors(t *testing.T) {
	t.Parallel()
	fail := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		grpc.SetTrailer(ctx, metadata.Pairs("retry-after", "3"))
		return nil, status.Error(codes.Unavailable, "later")
	}
	srv := httptest.NewServer(newFixture(t, "A", &recorder{}, protorest.WithUnaryInterceptors(fail)))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/v1/probes/abc", nil)
	req.Header.Set("Te", "trailers")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp)
	if resp.StatusCode != 503 || !strings.Contains(body, `"code":14`) {
		t.Errorf("status %d: %s", resp.StatusCode, body)
	}
	if got := resp.Trailer.Get("Grpc-Trailer-Retry-After"); got != "3" {
		t.Errorf("trailer = %q (%v)", got, resp.Trailer)
	}
}

func TestExpiredDeadlineFailsTheCall(t *testing.T) {
	t.Parallel()
	slow := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		// A method that ignores its deadline, then succeeds. It waits at
		// most 10s: without a deadline, ctx never ends, and the test must
		// fail (below), not hang until the test binary's timeout.
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
		}
		return h(context.WithoutCancel(ctx), req)
	}
	gw := newFixture(t, "A", &recorder{}, protorest.WithUnaryInterceptors(slow))
	start := time.Now()
	resp := do(t, gw, "GET", "/v1/probes/abc", "", "Grpc-Timeout", "20m")
	if resp.code != 504 || !strings.Contains(resp.body, `"code":4`) {
		t.Errorf("status %d: %s", resp.code, resp.body)
	}
	if time.Since(start) > 10*time.Second {
		t.Error("the deadline was not applied")
	}
}

func TestAcceptHeaderLinesCombine(t *testing.T) {
	t.Parallel()
	gw := newFixture(t, "A", &recorder{})
	resp := do(t, gw, "GET", "/v1/probes/abc", "", "Accept", "text/html", "Accept", "application/proto")
	if ct := resp.header.Get("Content-Type"); ct != "application/proto" {
		t.Errorf("Content-Type = %q", ct)
	}
}

func TestBinaryBodyEveryByteCounts(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	gw := newFixture(t, "A", rec)
	if resp := do(t, gw, "POST", "/v1/probes", "\n", "Content-Type", "application/proto"); resp.code != 400 {
		t.Errorf("truncated binary body: %d %s", resp.code, resp.body)
	}
	if resp := do(t, gw, "POST", "/v1/probes", "", "Content-Type", "application/proto"); resp.code != 200 {
		t.Errorf("empty binary body: %d %s", resp.code, resp.body)
	}
	if n := rec.count(); n != 1 {
		t.Errorf("%d calls", n)
	}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
