package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"
)

// HTTP/2 frame types and codes that h2Streams reads and writes (RFC 9113).
const (
	frameHeaders      = 0x1
	frameRSTStream    = 0x3
	frameSettings     = 0x4
	frameGoAway       = 0x7
	flagEndStream     = 0x1
	flagAck           = 0x1
	flagEndHeaders    = 0x4
	settingMaxStreams = 0x3
)

var h2ErrorNames = map[uint32]string{0x0: "NO_ERROR", 0x1: "PROTOCOL_ERROR", 0x2: "INTERNAL_ERROR", 0x7: "REFUSED_STREAM", 0x8: "CANCEL", 0xb: "ENHANCE_YOUR_CALM"}

// h2Streams opens an h2c connection with prior knowledge (the client's
// preface), acknowledges the server's SETTINGS, opens n streams, each a
// GET of path, and says what the server advertised and which stream it
// reset or whether it went away. It speaks the frames itself (HPACK
// literals, no Huffman): the standard library's client would wait for a
// free stream rather than breach the limit.
func h2Streams(addr, path string, n int) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"); err != nil {
		return "", err
	}
	if err := writeFrame(c, frameSettings, 0, 0, nil); err != nil {
		return "", err
	}
	advertised := "none"
	for advertised == "none" {
		typ, flags, _, payload, err := readFrame(c)
		if err != nil {
			return "", fmt.Errorf("reading the server's SETTINGS: %v", err)
		}
		if typ != frameSettings || flags&flagAck != 0 {
			continue
		}
		advertised = "unlimited"
		for p := payload; len(p) >= 6; p = p[6:] {
			if binary.BigEndian.Uint16(p) == settingMaxStreams {
				advertised = fmt.Sprint(binary.BigEndian.Uint32(p[2:]))
			}
		}
		if err := writeFrame(c, frameSettings, flagAck, 0, nil); err != nil {
			return "", err
		}
	}
	for i := range n {
		block := hpackLiterals(":method", "GET", ":scheme", "http", ":authority", addr, ":path", path)
		if err := writeFrame(c, frameHeaders, flagEndHeaders|flagEndStream, uint32(2*i+1), block); err != nil {
			return "", err
		}
	}
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	for {
		typ, _, stream, payload, err := readFrame(c)
		if err != nil {
			return fmt.Sprintf("SETTINGS_MAX_CONCURRENT_STREAMS %s; no reset nor GOAWAY in 3s (%v)", advertised, err), nil
		}
		switch {
		case typ == frameRSTStream && len(payload) >= 4:
			return fmt.Sprintf("SETTINGS_MAX_CONCURRENT_STREAMS %s; RST_STREAM %s on stream %d (the %s), the others left open",
				advertised, h2Error(binary.BigEndian.Uint32(payload)), stream, ordinal(int(stream+1)/2)), nil
		case typ == frameGoAway && len(payload) >= 8:
			return fmt.Sprintf("SETTINGS_MAX_CONCURRENT_STREAMS %s; GOAWAY %s after stream %d",
				advertised, h2Error(binary.BigEndian.Uint32(payload[4:])), binary.BigEndian.Uint32(payload)&0x7fffffff), nil
		}
	}
}

func h2Error(code uint32) string {
	if name, ok := h2ErrorNames[code]; ok {
		return name
	}
	return fmt.Sprintf("0x%x", code)
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprint(n) + suffix
}

func writeFrame(w io.Writer, typ, flags byte, stream uint32, payload []byte) error {
	var h [9]byte
	h[0], h[1], h[2] = byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload))
	h[3], h[4] = typ, flags
	binary.BigEndian.PutUint32(h[5:], stream)
	_, err := w.Write(append(h[:], payload...))
	return err
}

func readFrame(r io.Reader) (typ, flags byte, stream uint32, payload []byte, err error) {
	var h [9]byte
	if _, err = io.ReadFull(r, h[:]); err != nil {
		return
	}
	payload = make([]byte, int(h[0])<<16|int(h[1])<<8|int(h[2]))
	_, err = io.ReadFull(r, payload)
	return h[3], h[4], binary.BigEndian.Uint32(h[5:]) & 0x7fffffff, payload, err
}

// hpackLiterals encodes name, value pairs as HPACK literal header fields
// without indexing, new names, no Huffman (RFC 7541 §6.2.2); each string
// is shorter than 127 bytes.
func hpackLiterals(pairs ...string) []byte {
	var b []byte
	for i := 0; i < len(pairs); i += 2 {
		b = append(b, 0x00, byte(len(pairs[i])))
		b = append(b, pairs[i]...)
		b = append(b, byte(len(pairs[i+1])))
		b = append(b, pairs[i+1]...)
	}
	return b
}
