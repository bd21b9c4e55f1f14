package main

import (
	"crypto/tls"
	"io"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// tlsUpstream serves MySvc, reflection and health over TLS with a
// certificate of ca for names, requiring a client certificate of
// clientCA when it is not nil.
func tlsUpstream(t *testing.T, ca, clientCA *testCA, names ...string) string {
	t.Helper()
	certPEM, keyPEM, _ := ca.issue(t, names...)
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	if clientCA != nil {
		cfg.ClientCAs, cfg.ClientAuth = clientCA.pool(), tls.RequireAndVerifyClientCert
	}
	addr, _ := recordingUpstream(t, grpc.Creds(credentials.NewTLS(cfg)))
	return addr
}

func TestServeUpstreamTLS(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t, "upstream CA")
	dir := t.TempDir()
	caFile := writeFile(t, dir, "ca.pem", ca.pem)

	// --upstream-ca: reflection, REST, health and readiness over TLS.
	s := startServe(t, "--upstream", tlsUpstream(t, ca, nil, "127.0.0.1"), "--upstream-ca", caFile)
	eventually(t, 5*time.Second, "REST through a TLS upstream", func() (bool, string) {
		code, body := s.do(t, "POST", "/api/v1/example/upper", `{"msg":"x"}`)
		return code == 200 && body == `{"msg":"X"}`, body
	})
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := s.do(t, "GET", path, ""); code != 200 {
			t.Errorf("%s through a TLS upstream: %d %s", path, code, body)
		}
	}

	// --upstream-server-name: the certificate names another host.
	named := startServe(t, "--upstream", tlsUpstream(t, ca, nil, "upstream.test"), "--upstream-ca", caFile, "--upstream-server-name", "upstream.test")
	eventually(t, 5*time.Second, "REST with --upstream-server-name", func() (bool, string) {
		code, body := named.do(t, "POST", "/api/v1/example/upper", `{"msg":"x"}`)
		return code == 200, body
	})

	// Mutual TLS: without --upstream-cert the upstream refuses, with it
	// it serves.
	clientCA := newTestCA(t, "client CA")
	mtls := tlsUpstream(t, ca, clientCA, "127.0.0.1")
	refused := startServe(t, "--upstream", mtls, "--upstream-ca", caFile, "--load-timeout", "1s")
	if code, body := refused.do(t, "GET", "/readyz", ""); code != 503 {
		t.Errorf("readyz without a client certificate: %d %s", code, body)
	}
	certPEM, keyPEM, _ := clientCA.issue(t, "protorest")
	s = startServe(t, "--upstream", mtls, "--upstream-ca", caFile,
		"--upstream-cert", writeFile(t, dir, "client.pem", certPEM), "--upstream-key", writeFile(t, dir, "client.key", keyPEM))
	eventually(t, 5*time.Second, "REST through a mutual-TLS upstream", func() (bool, string) {
		code, body := s.do(t, "POST", "/api/v1/example/upper", `{"msg":"x"}`)
		return code == 200, body
	})
	// Plaintext to a TLS upstream waits and says so.
	plain := startServe(t, "--upstream", tlsUpstream(t, ca, nil, "127.0.0.1"), "--load-timeout", "1s")
	if code, _ := plain.do(t, "POST", "/api/v1/example/upper", `{"msg":"x"}`); code != 503 || !strings.Contains(plain.stderr.String(), "waiting for the upstream") {
		t.Errorf("plaintext to a TLS upstream: %d %s", code, plain.stderr.String())
	}
}

func TestUpstreamCredentialErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.pem", []byte("nothing"))
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--upstream-ca", bad}, "no PEM certificate"},
		{[]string{"--upstream-ca", dir + "/missing.pem"}, "missing.pem"},
		{[]string{"--upstream-cert", bad, "--upstream-key", bad}, "--upstream-cert"},
		{[]string{"--tls-cert", bad, "--tls-key", bad, "--listen", "127.0.0.1:0"}, "--tls-cert"},
		{[]string{"--tls-cert", bad, "--tls-key", bad, "--tls-client-ca", bad, "--listen", "127.0.0.1:0"}, "--tls-cert"},
	} {
		var stderr syncBuffer
		code := run(t.Context(), append([]string{"serve", "--upstream", "127.0.0.1:1"}, tt.args...), io.Discard, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%q: exit %d, %s; want 1 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}
