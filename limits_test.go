package protorest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/protorest/protorest"
)

// TestRequestSizeLimits: a target, header or query over its limit is answered before
// routing, and metadata over its limit before the method is called, each
// with its status and a google.rpc.Status body; the limits are options.
func TestRequestSizeLimits(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	gw := newFixture(t, "A", rec)
	many := func(n int, s string) string { return strings.TrimSuffix(strings.Repeat(s, n), "&") }
	for _, tt := range []struct {
		name    string
		target  string
		headers []string
		code    int
		body    string
	}{
		{"URL", "/v1/probes/" + strings.Repeat("a", 16<<10), nil, 414, `"code":8,"message":"request URL longer than the limit of 16 KiB"`},
		{"query", "/v1/probes/a?" + many(1001, "tags=x&"), nil, 400, `"code":3,"message":"more query parameters than the limit of 1000"`},
		{"headers", "/v1/probes/a", headerLines(101), 431, `"code":8,"message":"more request headers than the limit of 100"`},
		{"metadata", "/v1/probes/a", []string{"Grpc-Metadata-Big", strings.Repeat("b", 8<<10)}, 431, `"code":8,"message":"request metadata larger than the limit of 8 KiB"`},
	} {
		r := do(t, gw, "GET", tt.target, "", tt.headers...)
		if r.code != tt.code || !strings.Contains(r.body, tt.body) {
			t.Errorf("%s: %d %.200s", tt.name, r.code, r.body)
		}
	}
	if rec.count() != 0 {
		t.Errorf("requests over the limits called the method %d times", rec.count())
	}
	// At the limits, served.
	if r := do(t, gw, "GET", "/v1/probes/a?"+many(1000, "tags=x&"), "", headerLines(99)...); r.code != 200 {
		t.Errorf("1,000 query parameters and 100 header lines: %d %.200s", r.code, r.body)
	}
	// The target's length counts the "?": 16 KiB exactly is served, a
	// byte more is not.
	atLimit := "/v1/probes/a?tags="
	atLimit += strings.Repeat("x", 16<<10-len(atLimit))
	if r := do(t, gw, "GET", atLimit, ""); r.code != 200 {
		t.Errorf("a target of exactly 16 KiB: %d %.200s", r.code, r.body)
	}
	if r := do(t, gw, "GET", atLimit+"x", ""); r.code != 414 {
		t.Errorf("a target of 16 KiB and a byte: %d %.200s", r.code, r.body)
	}
	// The options move them.
	gw = newFixture(t, "A", &recorder{}, protorest.WithMaxURLBytes(0), protorest.WithMaxHeaders(0),
		protorest.WithMaxQueryParameters(2), protorest.WithMaxMetadataBytes(0))
	if r := do(t, gw, "GET", "/v1/probes/"+strings.Repeat("a", 20<<10), "", headerLines(200)...); r.code != 200 {
		t.Errorf("no URL or header limit: %d %.200s", r.code, r.body)
	}
	if r := do(t, gw, "GET", "/v1/probes/a", "", "Grpc-Metadata-Big", strings.Repeat("b", 64<<10)); r.code != 200 {
		t.Errorf("no metadata limit: %d %.200s", r.code, r.body)
	}
	if r := do(t, gw, "GET", "/v1/probes/a?tags=1&tags=2&tags=3", ""); r.code != 400 {
		t.Errorf("WithMaxQueryParameters(2), 3 parameters: %d", r.code)
	}
}

// TestDeadlines: a unary call without Grpc-Timeout gets the default
// deadline (none unless WithDefaultTimeout), and a Grpc-Timeout longer
// than the maximum is cut to it.
func TestDeadlines(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		opts     []protorest.Option
		timeout  string
		min, max time.Duration // 0, 0: no deadline
	}{
		{"none by default", nil, "", 0, 0},
		{"WithDefaultTimeout(30s)", []protorest.Option{protorest.WithDefaultTimeout(30 * time.Second)}, "", 25 * time.Second, 30 * time.Second},
		{"clamped", nil, "99999999H", 4 * time.Minute, 5 * time.Minute},
		{"asked", nil, "2S", time.Second, 2 * time.Second},
		{"WithMaxTimeout(1h)", []protorest.Option{protorest.WithMaxTimeout(time.Hour)}, "99999999H", 59 * time.Minute, time.Hour},
	} {
		var remaining time.Duration
		var has bool
		capture := func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			var dl time.Time
			dl, has = ctx.Deadline()
			remaining = time.Until(dl)
			return h(ctx, req)
		}
		gw := newFixture(t, "A", &recorder{}, append(tt.opts, protorest.WithUnaryInterceptors(capture))...)
		req := httptest.NewRequest("GET", "/v1/probes/a", nil)
		if tt.timeout != "" {
			req.Header.Set("Grpc-Timeout", tt.timeout)
		}
		w := httptest.NewRecorder()
		gw.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", tt.name, w.Code, w.Body)
		}
		if tt.max == 0 {
			if has {
				t.Errorf("%s: a deadline %v away, want none", tt.name, remaining)
			}
			continue
		}
		if !has || remaining < tt.min || remaining > tt.max {
			t.Errorf("%s: deadline %v away (%v), want %v to %v", tt.name, remaining, has, tt.min, tt.max)
		}
	}
}

// TestDefaultTimeoutSparesStreams: a stream gets no default deadline: it
// lasts as long as its client.
func TestDefaultTimeoutSparesStreams(t *testing.T) {
	t.Parallel()
	var has bool
	capture := func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		_, has = ss.Context().Deadline()
		return h(srv, ss)
	}
	gw := probesGateway(t, "in-process", newStreamer(), protorest.WithDefaultTimeout(30*time.Second), protorest.WithStreamInterceptors(capture))
	if r := do(t, gw, "GET", "/v1/watch/w?i32=1", ""); r.code != 200 || has {
		t.Errorf("stream: %d, deadline %v", r.code, has)
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
