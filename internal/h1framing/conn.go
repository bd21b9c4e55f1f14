package h1framing

import (
	"crypto/tls"
	"net"
	"sync/atomic"
)

// A Conn is a connection whose reads a Scanner follows, and which counts
// the requests Guard has seen on it.
type Conn struct {
	net.Conn
	scan   *Scanner
	served atomic.Int64 // requests past Guard, OPTIONS * left out
	linger atomic.Bool  // its close lingers (Linger)
}

// NewConn follows c's requests from its first byte.
func NewConn(c net.Conn) *Conn { return &Conn{Conn: c, scan: NewScanner()} }

// Read reads from the connection and scans what it read.
func (c *Conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.scan.Stopped() {
		c.scan.Scan(p[:n])
	}
	return n, err
}

// NetConn is the connection under c.
func (c *Conn) NetConn() net.Conn { return c.Conn }

// CloseWrite half-closes the connection under c, if it can: net/http does
// so before it closes a connection after a response, so that the client
// reads the response rather than a reset.
func (c *Conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// A tlsConn is a Conn over a *tls.Conn, for net/http to set Request.TLS
// from.
type tlsConn struct {
	*Conn
	tls *tls.Conn
}

// ConnectionState is the TLS state of the connection.
func (c tlsConn) ConnectionState() tls.ConnectionState { return c.tls.ConnectionState() }

// A listener returns its connections as Conns.
type listener struct{ net.Listener }

// NewListener returns l with each connection it accepts a Conn.
func NewListener(l net.Listener) net.Listener { return listener{l} }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return NewConn(c), nil
}
