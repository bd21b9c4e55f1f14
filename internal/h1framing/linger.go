package h1framing

import (
	"io"
	"net/http"
	"time"
)

// How long, and for how many bytes, a lingering close reads what the
// client still sends before it closes the connection.
const (
	lingerTime  = 2 * time.Second
	lingerBytes = 1 << 20
)

// Linger makes the close of r's connection linger (RFC 9112 §9.6): the
// server half-closes it, then reads and drops what the client still
// sends (for up to 2 s or 1 MiB, or until the client closes) before it
// closes it. A client still sending a request body the server will not
// read then reads the answer, where a close with unread bytes would
// send it a reset that may destroy the answer before it is read (a
// client that fails its write first reports that instead). It does
// nothing on a connection that is not a Conn (see Guard).
func Linger(r *http.Request) {
	if c, _ := r.Context().Value(connKey{}).(*Conn); c != nil {
		c.linger.Store(true)
	}
}

// Close closes the connection, lingering (Linger) if it was asked to.
func (c *Conn) Close() error {
	if !c.linger.Load() {
		return c.Conn.Close()
	}
	c.CloseWrite()
	c.Conn.SetReadDeadline(time.Now().Add(lingerTime))
	go func() {
		io.CopyN(io.Discard, c.Conn, lingerBytes)
		c.Conn.Close()
	}()
	return nil
}
