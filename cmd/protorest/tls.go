package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// certCheckInterval is how often, at most, a handshake looks at whether
// the certificate files changed.
const certCheckInterval = 2 * time.Second

// certReloader serves the key pair of two files and reloads it when
// either file changes (its modification time or size), so that a rotated
// certificate is served without a restart. The files are looked at during
// a handshake, at most once per interval: a stat of each, nothing more
// when they did not change. A pair that fails to load (a key written but
// not yet its certificate, a bad file) is logged, and the last good pair
// stays in use until the files change again.
type certReloader struct {
	certFile, keyFile string
	interval          time.Duration
	log               *slog.Logger

	mu      sync.Mutex
	cert    *tls.Certificate
	seen    [2]fileStamp // of the files when last loaded or tried
	checked time.Time
}

// fileStamp is what tells that a file changed.
type fileStamp struct {
	mod  time.Time
	size int64
}

func stamp(name string) (fileStamp, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{fi.ModTime(), fi.Size()}, nil
}

// newCertReloader loads the pair once; an error here stops serve.
func newCertReloader(certFile, keyFile string, log *slog.Logger) (*certReloader, error) {
	c := &certReloader{certFile: certFile, keyFile: keyFile, interval: certCheckInterval, log: log}
	if err := c.load(); err != nil {
		return nil, err
	}
	c.checked = time.Now()
	return c, nil
}

// load reads the pair. Called with mu held, or before c is shared.
func (c *certReloader) load() error {
	var stamps [2]fileStamp
	for i, name := range []string{c.certFile, c.keyFile} {
		s, err := stamp(name)
		if err != nil {
			return err
		}
		stamps[i] = s
	}
	c.seen = stamps
	cert, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		return fmt.Errorf("--tls-cert %s, --tls-key %s: %w", c.certFile, c.keyFile, err)
	}
	c.cert = &cert
	return nil
}

// GetCertificate is tls.Config.GetCertificate.
func (c *certReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := time.Now(); now.Sub(c.checked) >= c.interval {
		c.checked = now
		if c.changed() {
			if err := c.load(); err != nil {
				c.log.Error("certificate reload failed; serving the previous one", "error", err)
			} else {
				c.log.Info("certificate reloaded", "cert", c.certFile, "key", c.keyFile)
			}
		}
	}
	return c.cert, nil
}

// changed reports whether either file differs from when it was last
// loaded or tried. A file that cannot be read counts as unchanged (it may
// be being replaced), and the pair in use stays.
func (c *certReloader) changed() bool {
	for i, name := range []string{c.certFile, c.keyFile} {
		s, err := stamp(name)
		if err == nil && s != c.seen[i] {
			return true
		}
	}
	return false
}

// readCertPool reads a PEM file of CA certificates.
func readCertPool(flagName, file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flagName, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--%s %s: no PEM certificate in the file", flagName, file)
	}
	return pool, nil
}

// listenerTLS is the TLS configuration of the listener, per the flags; nil
// without --tls-cert. net/http adds the ALPN protocols (h2, http/1.1).
func (c *serveConfig) listenerTLS(log *slog.Logger) (*tls.Config, error) {
	if c.tlsCert == "" {
		return nil, nil
	}
	certs, err := newCertReloader(c.tlsCert, c.tlsKey, log)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: certs.GetCertificate}
	if c.tlsClientCA != "" {
		if cfg.ClientCAs, err = readCertPool("tls-client-ca", c.tlsClientCA); err != nil {
			return nil, err
		}
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// upstreamTLSOn reports whether the flags ask for TLS to the upstream.
func (c *serveConfig) upstreamTLSOn() bool {
	return c.upstreamTLS || c.upstreamCA != "" || c.upstreamCert != "" || c.upstreamServerName != ""
}

// upstreamCredentials are the transport credentials of the upstream
// connection: TLS per the flags (the system's roots, or --upstream-ca;
// a client certificate; the server name), else plaintext.
func (c *serveConfig) upstreamCredentials() (credentials.TransportCredentials, error) {
	if !c.upstreamTLSOn() {
		return insecure.NewCredentials(), nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.upstreamServerName}
	if c.upstreamCA != "" {
		pool, err := readCertPool("upstream-ca", c.upstreamCA)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if c.upstreamCert != "" {
		cert, err := tls.LoadX509KeyPair(c.upstreamCert, c.upstreamKey)
		if err != nil {
			return nil, fmt.Errorf("--upstream-cert %s, --upstream-key %s: %w", c.upstreamCert, c.upstreamKey, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return credentials.NewTLS(cfg), nil
}
