package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is an io.Writer safe to read while the demo writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args       []string
		code       int
		out, errIn string
	}{
		{args: nil, code: 2, errIn: "Usage:"},
		{args: []string{"--help"}, code: 0, out: "demo"},
		{args: []string{"demo", "-h"}, code: 0, out: "Usage: protorest demo"},
		{args: []string{"serve", "--help"}, code: 0, out: "Usage: protorest serve"},
		{args: []string{"serve", "--bogus"}, code: 2, errIn: "protorest serve: flag provided but not defined: -bogus (see protorest serve --help)"},
		{args: []string{"nope"}, code: 2, errIn: `unknown command "nope"`},
		{args: []string{"demo", "extra"}, code: 2, errIn: `unexpected argument "extra"`},
		{args: []string{"demo", "-http", "256.0.0.1:bad"}, code: 1, errIn: "protorest demo:"},
	}
	for _, tt := range tests {
		var stdout, stderr syncBuffer
		code := run(context.Background(), tt.args, &stdout, &stderr)
		if code != tt.code || !strings.Contains(stdout.String(), tt.out) || !strings.Contains(stderr.String(), tt.errIn) {
			t.Errorf("run(%q) = %d\nstdout: %s\nstderr: %s", tt.args, code, stdout.String(), stderr.String())
		}
	}
}

// startDemo runs the demo on free ports and returns its HTTP address
// (host:port) and what stops it: stop cancels the demo and fails t unless
// it exits 0 within 10 s.
func startDemo(t *testing.T) (addr string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"demo", "-grpc", "127.0.0.1:0", "-http", "127.0.0.1:0"}, &stdout, &stderr)
	}()
	stop = func() {
		t.Helper()
		cancel()
		waitExit(t, done, &stderr, "the demo")
	}
	t.Cleanup(cancel)
	return waitFor(t, &stdout, regexp.MustCompile(`HTTP/JSON (\S+)`)), stop
}

func TestDemoServesAndStops(t *testing.T) {
	t.Parallel()
	addr, stop := startDemo(t)
	resp, err := http.Post("http://"+addr+"/api/v1/example/upper", "application/json", strings.NewReader(`{"msg":"hello"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"msg":"HELLO"}` {
		t.Errorf("upper: %d %s", resp.StatusCode, body)
	}
	stop()
}

// waitExit waits for a run that was cancelled to return: t fails unless
// it returns 0, and stops if it has not returned within 10 s (what names
// the run).
func waitExit(t *testing.T, done <-chan int, stderr *syncBuffer, what string) {
	t.Helper()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d; stderr: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal(what + " did not stop")
	}
}
