package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	conformancev1 "github.com/protorest/protorest/e2e/conformance/internal/proto/connectrpc/conformance/v1"
)

// testPorts are the ports the tests listen on: the top of the harness's
// range (scripts/conformance.sh's in-process servers use 58475-58499),
// CONFORMANCE_TEST_PORTS to move them.
func testPorts(t *testing.T) portRange {
	s := os.Getenv("CONFORMANCE_TEST_PORTS")
	if s == "" {
		s = "58495-58499"
	}
	p, err := parsePortRange(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDelimited(t *testing.T) {
	var buf bytes.Buffer
	want := &conformancev1.ServerCompatResponse{Host: "127.0.0.1", Port: 58450, PemCert: []byte("pem")}
	if err := writeDelimited(&buf, want); err != nil {
		t.Fatal(err)
	}
	if buf.Bytes()[3] != byte(buf.Len()-4) {
		t.Errorf("length prefix % x for %d bytes", buf.Bytes()[:4], buf.Len()-4)
	}
	got := &conformancev1.ServerCompatResponse{}
	if err := readDelimited(&buf, got); err != nil || !proto.Equal(got, want) {
		t.Errorf("read back %v (%v), want %v", got, err, want)
	}
	for _, bad := range [][]byte{{0, 0}, {0, 0, 0, 9, 1}, {0x7f, 0, 0, 0}} {
		if err := readDelimited(bytes.NewReader(bad), got); err == nil {
			t.Errorf("readDelimited(% x): no error", bad)
		}
	}
}

func TestParsePortRange(t *testing.T) {
	if p, err := parsePortRange("58450-58499"); err != nil || p != (portRange{58450, 58499}) {
		t.Errorf("parsePortRange = %v, %v", p, err)
	}
	for _, bad := range []string{"", "58450", "58499-58450", "0-10", "1-70000", "a-b"} {
		if _, err := parsePortRange(bad); err == nil {
			t.Errorf("parsePortRange(%q): no error", bad)
		}
	}
}

func TestServeArgs(t *testing.T) {
	dir := t.TempDir()
	req := &conformancev1.ServerCompatRequest{UseTls: true, ClientTlsCert: []byte("client"), MessageReceiveLimit: 1024}
	args, err := serveArgs(dir, req, []byte("cert"), []byte("key"), 58451, limits{readIdleTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(args, " ")
	for _, want := range []string{
		"serve --upstream 127.0.0.1:58451 --descriptor-set " + filepath.Join(dir, "conformance.binpb"),
		"--default-timeout 0",
		"--read-idle-timeout 5s",
		"--tls-cert " + filepath.Join(dir, "cert.pem") + " --tls-key " + filepath.Join(dir, "key.pem"),
		"--tls-client-ca " + filepath.Join(dir, "client-ca.pem"),
		"--max-body-size 1024",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("serve %s: lacks %q", line, want)
		}
	}
	if slices.Contains(args, "--auto-map") {
		t.Errorf("serve %s: auto-maps, so the protocols' 415 for another Content-Type is the REST route's answer", line)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "client-ca.pem")); err != nil || string(b) != "client" {
		t.Errorf("client-ca.pem: %q, %v", b, err)
	}
	plain, err := serveArgs(dir, &conformancev1.ServerCompatRequest{}, nil, nil, 58451, limits{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(plain, "--tls-cert") || slices.Contains(plain, "--max-body-size") {
		t.Errorf("serve %q for a plaintext request without a limit", plain)
	}
}

// TestInProcessTLSClientCerts starts the in-process server as the runner
// asks for TLS with client certificates, and makes a Connect unary call
// at the canonical path with and without the client's certificate.
func TestInProcessTLSClientCerts(t *testing.T) {
	serverCert, serverKey, err := selfSigned()
	if err != nil {
		t.Fatal(err)
	}
	clientCert, clientKey, err := selfSigned()
	if err != nil {
		t.Fatal(err)
	}
	req := &conformancev1.ServerCompatRequest{
		UseTls:        true,
		ServerCreds:   &conformancev1.TLSCreds{Cert: serverCert, Key: serverKey},
		ClientTlsCert: clientCert,
	}
	srv, err := startInProcess(req, serverCert, serverKey, testPorts(t), limits{readIdleTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(serverCert)
	pair, err := tls.X509KeyPair(clientCert, clientKey)
	if err != nil {
		t.Fatal(err)
	}
	url := "https://127.0.0.1:" + strconv.Itoa(srv.port) + "/connectrpc.conformance.v1.ConformanceService/Unary"
	body := `{"responseDefinition": {"responseData": "b3V0"}}`
	call := func(certs []tls.Certificate) (*http.Response, error) {
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: certs}}}
		defer c.CloseIdleConnections()
		return c.Post(url, "application/json", strings.NewReader(body))
	}
	resp, err := call([]tls.Certificate{pair})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Payload struct{ Data string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != 200 || got.Payload.Data != "b3V0" {
		t.Errorf("with the client's certificate: %s, payload %+v (%v), want 200 and data b3V0", resp.Status, got, err)
	}
	if resp, err := call(nil); err == nil {
		resp.Body.Close()
		t.Errorf("without a client certificate: %s, want a refused handshake", resp.Status)
	}
}
