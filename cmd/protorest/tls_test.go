package main

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	examplev1 "github.com/protorest/protorest/examples/example/v1"
)

// startTLSServe runs serve with --tls-cert and --tls-key from ca for
// 127.0.0.1, in front of an upstream, with more args.
func startTLSServe(t *testing.T, ca *testCA, args ...string) (s *served, certFile, keyFile string, serialNumber int64) {
	t.Helper()
	dir := t.TempDir()
	certPEM, keyPEM, serialNumber := ca.issue(t, "127.0.0.1", "localhost")
	certFile = writeFile(t, dir, "cert.pem", certPEM)
	keyFile = writeFile(t, dir, "key.pem", keyPEM)
	addr := freeAddr(t)
	upstreamAt(t, addr, false)
	s = startServe(t, append([]string{"--upstream", addr, "--tls-cert", certFile, "--tls-key", keyFile}, args...)...)
	if !strings.HasPrefix(s.url, "https://") {
		t.Fatalf("serve with --tls-cert: %s", s.url)
	}
	return s, certFile, keyFile, serialNumber
}

// upper calls MySvc.Upper over REST with client, and returns the protocol,
// the serial number of the server's certificate and the body.
func upper(client *http.Client, url string) (proto string, serial int64, body string, err error) {
	resp, err := client.Post(url+"/api/v1/example/upper", "application/json", strings.NewReader(`{"msg":"tls"}`))
	if err != nil {
		return "", 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.Proto, resp.TLS.PeerCertificates[0].SerialNumber.Int64(), string(b), err
}

func TestServeTLS(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t, "test CA")
	s, _, _, _ := startTLSServe(t, ca)
	for _, h2 := range []bool{false, true} {
		proto, _, body, err := upper(tlsClient(ca, h2), s.url)
		want := map[bool]string{false: "HTTP/1.1", true: "HTTP/2.0"}[h2]
		if err != nil || proto != want || body != `{"msg":"TLS"}` {
			t.Errorf("REST over TLS, %s: %s %s %v", want, proto, body, err)
		}
	}
	// Plaintext to the TLS port is answered with an HTTP error, not served.
	if resp, err := http.Get("http://" + strings.TrimPrefix(s.url, "https://") + "/livez"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("plaintext to the TLS port: %d", resp.StatusCode)
		}
	}

	// gRPC over TLS to the same port, proxied to the upstream.
	conn, err := grpc.NewClient(strings.TrimPrefix(s.url, "https://"), grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: ca.pool()})))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	resp, err := examplev1.NewMySvcClient(conn).Upper(context.Background(), &examplev1.UpperRequest{Msg: "grpc"})
	if err != nil || resp.GetMsg() != "GRPC" {
		t.Errorf("gRPC over TLS on the same port: %v %v", resp, err)
	}
	// The access log's line is written within 100 ms.
	eventually(t, 5*time.Second, "the access log line of the gRPC call", func() (bool, string) {
		out := s.stderr.String()
		return strings.Contains(out, `http.route="" url.path=/example.v1.MySvc/Upper http.response.status_code=200 rpc.response.status_code=OK`), out
	})
}

func TestServeTLSClientCertificates(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t, "server CA")
	clientCA := newTestCA(t, "client CA")
	caFile := writeFile(t, t.TempDir(), "client-ca.pem", clientCA.pem)
	s, _, _, _ := startTLSServe(t, ca, "--tls-client-ca", caFile)

	if _, _, body, err := upper(tlsClient(ca, false), s.url); err == nil {
		t.Errorf("a client without a certificate was served: %s", body)
	} else {
		t.Logf("without a certificate: %v", err)
	}
	// A certificate from another CA is refused too.
	otherPEM, otherKey, _ := ca.issue(t, "intruder")
	other, err := tls.X509KeyPair(otherPEM, otherKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, body, err := upper(tlsClient(ca, true, other), s.url); err == nil {
		t.Errorf("a client with a certificate of another CA was served: %s", body)
	}
	certPEM, keyPEM, _ := clientCA.issue(t, "client")
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	for _, h2 := range []bool{false, true} {
		if _, _, body, err := upper(tlsClient(ca, h2, cert), s.url); err != nil || body != `{"msg":"TLS"}` {
			t.Errorf("a client with a certificate (HTTP/2 %v): %s %v", h2, body, err)
		}
	}
}

// TestServeTLSRotation replaces the certificate files under a running
// serve: a bad pair is logged and the old one kept; a good one is served
// on the next connections, without a restart.
func TestServeTLSRotation(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t, "test CA")
	s, certFile, keyFile, first := startTLSServe(t, ca)
	client := tlsClient(ca, false)
	if _, serial, _, err := upper(client, s.url); err != nil || serial != first {
		t.Fatalf("first certificate: %d %v", serial, err)
	}

	writeFile(t, "", certFile, []byte("not a certificate"))
	eventually(t, 10*time.Second, "the failed reload logged", func() (bool, string) {
		_, serial, _, err := upper(client, s.url)
		if err != nil || serial != first {
			t.Fatalf("after a bad certificate file: serial %d (want the first, %d), %v", serial, first, err)
		}
		return strings.Contains(s.stderr.String(), "certificate reload failed"), ""
	})

	certPEM, keyPEM, second := ca.issue(t, "127.0.0.1")
	writeFile(t, "", keyFile, keyPEM)
	writeFile(t, "", certFile, certPEM)
	took := eventually(t, 10*time.Second, "the rotated certificate", func() (bool, string) {
		_, serial, body, err := upper(client, s.url)
		if err != nil || body != `{"msg":"TLS"}` {
			t.Fatalf("during the rotation: %s %v", body, err)
		}
		return serial == second, ""
	})
	t.Logf("rotated certificate served after %v", took)
	if !strings.Contains(s.stderr.String(), "certificate reloaded") {
		t.Errorf("the reload is not logged: %s", s.stderr.String())
	}
}
