package h1framing

import (
	"context"
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// ServerListener is l as srv is to serve it with Guard: its connections
// Conns; when srv.TLSConfig is set, after a TLS handshake with it (ALPN
// as http.Server.ServeTLS offers it), and an HTTP/2 connection left the
// *tls.Conn net/http serves HTTP/2 on. The certificate comes from
// srv.TLSConfig (Certificates, GetCertificate or GetConfigForClient).
func ServerListener(srv *http.Server, l net.Listener) net.Listener {
	if srv.TLSConfig == nil {
		return NewListener(l)
	}
	config := srv.TLSConfig.Clone()
	config.NextProtos = nextProtos(srv)
	logf := log.Printf
	if srv.ErrorLog != nil {
		logf = srv.ErrorLog.Printf
	}
	return NewTLSListener(l, config, handshakeTimeout(srv), logf)
}

// nextProtos is the ALPN list of srv.TLSConfig, with h2 and http/1.1 as
// srv serves them, as http.Server.ServeTLS makes it; h2 only when
// http.Server.Serve will set up HTTP/2 for the connections negotiating
// it (else net/http would close them unserved).
func nextProtos(srv *http.Server) []string {
	var p http.Protocols
	if srv.Protocols != nil {
		p = *srv.Protocols
	} else {
		p.SetHTTP1(true)
		_, h2 := srv.TLSNextProto["h2"]
		p.SetHTTP2(srv.TLSNextProto == nil || h2)
	}
	h2 := p.HTTP2() && (p.UnencryptedHTTP2() || slices.Contains(srv.TLSConfig.NextProtos, "h2"))
	protos := slices.DeleteFunc(slices.Clone(srv.TLSConfig.NextProtos), func(s string) bool {
		return (s == "h2" && !h2) || (s == "http/1.1" && !p.HTTP1())
	})
	if h2 && !slices.Contains(protos, "h2") {
		protos = append(protos, "h2")
	}
	if p.HTTP1() && !slices.Contains(protos, "http/1.1") {
		protos = append(protos, "http/1.1")
	}
	return protos
}

// handshakeTimeout is net/http's: the least of srv's read header, read
// and write timeouts that is set; 0 is none.
func handshakeTimeout(srv *http.Server) time.Duration {
	var d time.Duration
	for _, t := range []time.Duration{srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout} {
		if t > 0 && (d == 0 || t < d) {
			d = t
		}
	}
	return d
}

// A tlsListener does the TLS handshakes of its connections, each on a
// goroutine of its own (net/http does them on the connection's), and
// returns each connection once its handshake is done: an HTTP/2 one as
// its *tls.Conn, an HTTP/1.x one as a Conn over it.
type tlsListener struct {
	net.Listener
	config  *tls.Config
	timeout time.Duration
	logf    func(format string, args ...any)

	conns     chan net.Conn
	errs      chan error
	done      chan struct{}
	closeOnce sync.Once
}

// NewTLSListener returns l with each connection it accepts served TLS
// with config, as described above: a handshake that takes longer than
// timeout (0: no limit) or fails is logged with logf and its connection
// closed. A client that speaks plain HTTP gets net/http's 400.
func NewTLSListener(l net.Listener, config *tls.Config, timeout time.Duration, logf func(format string, args ...any)) net.Listener {
	tl := &tlsListener{Listener: l, config: config, timeout: timeout, logf: logf,
		conns: make(chan net.Conn), errs: make(chan error), done: make(chan struct{})}
	go tl.acceptLoop()
	return tl
}

func (l *tlsListener) acceptLoop() {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			select {
			case l.errs <- err:
			case <-l.done:
				return
			}
			if !isTemporary(err) {
				return
			}
			continue
		}
		go l.handshake(c)
	}
}

// isTemporary reports whether Accept's err passes (EMFILE, say): net/http
// retries those, after a pause.
func isTemporary(err error) bool {
	t, ok := err.(interface{ Temporary() bool })
	return ok && t.Temporary()
}

func (l *tlsListener) handshake(c net.Conn) {
	tc := tls.Server(c, l.config)
	ctx := context.Background()
	if l.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, l.timeout)
		defer cancel()
	}
	if err := tc.HandshakeContext(ctx); err != nil {
		reason := err.Error()
		if re, ok := err.(tls.RecordHeaderError); ok && re.Conn != nil && looksLikeHTTP(re.RecordHeader) {
			io.WriteString(re.Conn, "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n")
			reason = "client sent an HTTP request to an HTTPS server"
		}
		l.logf("http: TLS handshake error from %s: %v", c.RemoteAddr(), reason)
		c.Close()
		return
	}
	var served net.Conn = tc
	if tc.ConnectionState().NegotiatedProtocol != "h2" {
		served = tlsConn{Conn: NewConn(tc), tls: tc}
	}
	select {
	case l.conns <- served:
	case <-l.done:
		served.Close()
	}
}

// looksLikeHTTP is net/http's test of a TLS record header that is the
// start of a plain HTTP request.
func looksLikeHTTP(hdr [5]byte) bool {
	switch string(hdr[:]) {
	case "GET /", "HEAD ", "POST ", "PUT /", "OPTIO":
		return true
	}
	return false
}

// Accept returns the next connection whose handshake is done.
func (l *tlsListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case err := <-l.errs:
		return nil, err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting; connections still in their handshake are closed
// when it ends.
func (l *tlsListener) Close() error {
	err := net.ErrClosed
	l.closeOnce.Do(func() {
		close(l.done)
		err = l.Listener.Close()
	})
	return err
}
