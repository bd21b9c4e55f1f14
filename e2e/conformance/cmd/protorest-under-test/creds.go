package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"time"

	conformancev1 "github.com/protorest/protorest/e2e/conformance/internal/proto/connectrpc/conformance/v1"
)

// serverCreds is the certificate and key (PEM) the server under test
// presents: the runner's (server_creds) when it sends them, else a
// self-signed pair for 127.0.0.1 and localhost made now.
func serverCreds(req *conformancev1.ServerCompatRequest) (certPEM, keyPEM []byte, err error) {
	if c := req.GetServerCreds(); len(c.GetCert()) > 0 && len(c.GetKey()) > 0 {
		return c.GetCert(), c.GetKey(), nil
	}
	return selfSigned()
}

// selfSigned makes an ECDSA P-256 certificate for 127.0.0.1 and
// localhost, valid for a day, for servers and clients alike, and its
// key, in PEM.
func selfSigned() (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "protorest conformance"},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IsCA:         true,
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},

		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

// tlsConfig is the listener's TLS configuration for req: its certificate,
// HTTP/2 and HTTP/1.1 by ALPN, and, when the runner sends a client
// certificate, client certificates required and verified against it.
func tlsConfig(req *conformancev1.ServerCompatRequest, certPEM, keyPEM []byte) (*tls.Config, error) {
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}}
	if ca := req.GetClientTlsCert(); len(ca) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return nil, errors.New("client_tls_cert: no PEM certificate")
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}
