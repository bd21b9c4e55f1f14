package protorest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/protorest/protorest"
)

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

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
