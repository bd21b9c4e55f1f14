package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestServeProtocolFlags: serve answers a Connect call at a method's
// path, unless --connect=false, which leaves it to REST (no route: 404);
// and --grpc-web=false does the same for gRPC-Web.
func TestServeProtocolFlags(t *testing.T) {
	t.Parallel()
	addr, _ := recordingUpstream(t)
	connectCall := func(s *served) (int, string) {
		req, _ := http.NewRequest("POST", s.url+"/example.v1.MySvc/Upper", strings.NewReader(`{"msg":"x"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Connect-Protocol-Version", "1")
		return doRequest(t, req)
	}
	webCall := func(s *served) (int, string) {
		// "msg": "x" in an envelope.
		req, _ := http.NewRequest("POST", s.url+"/example.v1.MySvc/Upper", strings.NewReader("\x00\x00\x00\x00\x03\x0a\x01x"))
		req.Header.Set("Content-Type", "application/grpc-web+proto")
		return doRequest(t, req)
	}
	on := startServe(t, "--upstream", addr)
	if code, body := connectCall(on); code != 200 || body != `{"msg":"X"}` {
		t.Errorf("Connect: %d %s", code, body)
	}
	if code, body := webCall(on); code != 200 || !strings.Contains(body, "X") || !strings.Contains(body, "grpc-status: 0\r\n") {
		t.Errorf("gRPC-Web: %d %q", code, body)
	}
	off := startServe(t, "--upstream", addr, "--connect=false", "--grpc-web=false")
	if code, body := connectCall(off); code != 404 {
		t.Errorf("--connect=false: %d %s", code, body)
	}
	if code, body := webCall(off); code != 404 {
		t.Errorf("--grpc-web=false: %d %q", code, body)
	}
}

// doRequest sends req with http.DefaultClient and reads the answer.
func doRequest(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := io.Copy(&b, resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b.String()
}

// TestAccessLogProtocols: a Connect call's access log line has the
// canonical path as its route, and its RPC system and protocol.
func TestAccessLogProtocols(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	upstreamAt(t, addr, false)
	s := startServe(t, "--upstream", addr, "--log-format", "json")
	req, _ := http.NewRequest("POST", s.url+"/example.v1.MySvc/Upper", strings.NewReader(`{"msg":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Connect-Protocol-Version", "1")
	if code, body := doRequest(t, req); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	lines := accessLines(t, s)
	if len(lines) != 1 {
		t.Fatalf("%d lines: %v", len(lines), lines)
	}
	l := lines[0]
	if l["http.route"] != "/example.v1.MySvc/Upper" || l["rpc.system.name"] != "connectrpc" || l["protorest.rpc.protocol"] != "connect" ||
		l["rpc.method"] != "example.v1.MySvc/Upper" || l["rpc.response.status_code"] != "OK" {
		t.Errorf("line %v", l)
	}
}
