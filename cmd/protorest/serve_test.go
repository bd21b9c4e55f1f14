package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/reflection"

	examplev1 "github.com/protorest/protorest/examples/example/v1"
	"github.com/protorest/protorest/examples/services"
)

func startUpstream(t *testing.T, withReflection bool) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	examplev1.RegisterMySvcServer(srv, services.NewMySvc())
	if withReflection {
		reflection.Register(srv)
	}
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

// waitFor polls w until re matches, and returns the first group.
func waitFor(t *testing.T, w *syncBuffer, re *regexp.Regexp) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(w.String()); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no %v in output %q", re, w.String())
	return ""
}

func TestServe(t *testing.T) {
	t.Parallel()
	upstream := startUpstream(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"serve", "--upstream", upstream, "--listen", "127.0.0.1:0", "--proto-names"}, &stdout, &stderr)
	}()
	addr := waitFor(t, &stdout, regexp.MustCompile(`HTTP/JSON on (\S+)`))
	resp, err := http.Post("http://"+addr+"/api/v1/example/upper", "application/json", strings.NewReader(`{"msg":"hello"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"msg":"HELLO"}` {
		t.Errorf("upper: %d %s", resp.StatusCode, body)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func TestServeErrors(t *testing.T) {
	t.Parallel()
	noReflection := startUpstream(t, false)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no upstream", []string{"serve"}, "--upstream is required"},
		{"bad unescape", []string{"serve", "--upstream", "x:1", "--unescape", "some"}, `--unescape "some"`},
		{"no reflection", []string{"serve", "--upstream", noReflection, "--startup-timeout", "5s"}, "reflection"},
		{"missing descriptor set", []string{"serve", "--upstream", noReflection, "--descriptor-set", "/nonexistent.binpb"}, "/nonexistent.binpb"},
		{"unknown service", []string{"serve", "--upstream", startUpstream(t, true), "--service", "no.Such"}, `"no.Such"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr syncBuffer
			code := run(context.Background(), tt.args, &stdout, &stderr)
			out := stderr.String()
			if code != 1 || !strings.Contains(out, tt.want) || !strings.HasPrefix(out, "protorest serve: ") || strings.Count(strings.TrimSpace(out), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want one line containing %q", code, out, tt.want)
			}
		})
	}
}
