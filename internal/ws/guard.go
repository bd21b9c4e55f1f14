package ws

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/coder/websocket"
)

// frameGuard reads the client's side of a WebSocket as it arrives, under
// coder/websocket, and stops at a frame header the connection must not go
// past: an unmasked frame (RFC 6455 §5.1: close 1002), or a data frame
// longer than the message limit (close 1009), which the library would
// otherwise wait to read for as long as the client cares to send nothing;
// and before the last byte of a close frame whose reason is not UTF-8
// (§5.5.1, §8.1: close 1007), which the library would echo with the
// client's code. It passes every byte on unchanged; of the payloads, it
// reads close frames' only.
type frameGuard struct {
	src   io.Reader
	limit uint64

	hdr  [14]byte // the frame header being read
	n    int      // its bytes so far
	left uint64   // payload bytes of the current frame still to pass
	err  error    // what ended the stream
	fail *closeFrame

	// The close frame being passed: its payload so far, and its mask.
	closing   bool
	closeBody []byte
	mask      [4]byte
}

// closeFrame is the close a protocol failure calls for.
type closeFrame struct {
	code   websocket.StatusCode
	reason string
}

func (g *frameGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.src.Read(p)
	closeStart := -1 // where the close frame being passed began, if in p
	for i := 0; i < n; {
		if g.left > 0 {
			k := min(uint64(n-i), g.left)
			if g.closing {
				g.closeBody = append(g.closeBody, p[i:i+int(k)]...)
			}
			i += int(k)
			g.left -= k
			if g.left == 0 && g.closing {
				g.closing = false
				if f := g.checkClose(); f != nil {
					g.fail, g.err = f, errProtocol
					return max(closeStart, 0), g.err
				}
			}
			continue
		}
		start := i - g.n // where this header began, if in p
		g.hdr[g.n] = p[i]
		g.n++
		i++
		hlen := headerLen(g.hdr[1])
		if g.n < 2 || g.n < hlen {
			continue
		}
		if f := g.check(); f != nil {
			g.fail, g.err = f, errProtocol
			return max(start, 0), g.err
		}
		g.left, g.n = payloadLen(g.hdr[:g.n]), 0
		if g.hdr[0]&0x0f == 8 && g.left > 2 && g.left <= 125 { // a close frame with a reason
			g.closing, g.closeBody, closeStart = true, g.closeBody[:0], start
			copy(g.mask[:], g.hdr[hlen-4:hlen])
		}
	}
	return n, err
}

// checkClose judges a whole close frame's payload: its reason must be
// UTF-8.
func (g *frameGuard) checkClose() *closeFrame {
	reason := g.closeBody[2:]
	for i := range reason {
		reason[i] ^= g.mask[(i+2)%4]
	}
	if !utf8.Valid(reason) {
		return &closeFrame{websocket.StatusInvalidFramePayloadData, "a close reason that is not UTF-8"}
	}
	return nil
}

var errProtocol = io.ErrUnexpectedEOF // what coder/websocket sees: the stream ends

// check judges a whole frame header.
func (g *frameGuard) check() *closeFrame {
	if g.hdr[1]&0x80 == 0 {
		return &closeFrame{websocket.StatusProtocolError, "unmasked frame from the client"}
	}
	if op := g.hdr[0] & 0x0f; op <= 2 && payloadLen(g.hdr[:g.n]) > g.limit { // continuation, text, binary
		return &closeFrame{websocket.StatusMessageTooBig, "message larger than the limit of " + strconv.FormatUint(g.limit, 10) + " bytes"}
	}
	return nil
}

// headerLen is the length of a frame header whose second byte is b1.
func headerLen(b1 byte) int {
	n := 2
	switch b1 & 0x7f {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if b1&0x80 != 0 {
		n += 4 // the mask key
	}
	return n
}

func payloadLen(h []byte) uint64 {
	switch n := h[1] & 0x7f; n {
	case 126:
		return uint64(binary.BigEndian.Uint16(h[2:]))
	case 127:
		return binary.BigEndian.Uint64(h[2:])
	default:
		return uint64(n)
	}
}

// guardedWriter is the ResponseWriter websocket.Accept hijacks: the
// connection it gets reads through the guard.
type guardedWriter struct {
	http.ResponseWriter
	guard *frameGuard
}

func (w guardedWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	buffered, _ := brw.Reader.Peek(brw.Reader.Buffered())
	w.guard.src = io.MultiReader(bytes.NewReader(bytes.Clone(buffered)), conn)
	gc := guardedConn{Conn: conn, guard: w.guard}
	return gc, bufio.NewReadWriter(bufio.NewReader(gc), brw.Writer), nil
}

// Unwrap lets http.ResponseController reach the writer underneath.
func (w guardedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

type guardedConn struct {
	net.Conn
	guard *frameGuard
}

func (c guardedConn) Read(p []byte) (int, error) { return c.guard.Read(p) }
