// Package h1framing refuses HTTP/1.x requests whose framing RFC 9112 calls
// faulty and net/http serves anyway: Content-Length together with
// Transfer-Encoding (§6.3: net/http drops the Content-Length and keeps the
// connection, so a request pipelined behind it is read where a proxy that
// honoured the Content-Length would not), and Transfer-Encoding on
// HTTP/1.0 (§6.1: net/http ignores it and runs the method with an empty
// body). net/http deletes both fields before a handler runs, so a
// connection wrapper (Listener) follows the request heads as they are
// read, and a handler (Guard) answers the faulty request 400 and closes
// the connection.
package h1framing

import (
	"bytes"
	"math"
	"strings"
	"sync/atomic"
)

// A Fault is what is wrong with a request's framing.
type Fault uint32

const (
	// NoFault: the framing is as RFC 9112 says.
	NoFault Fault = iota
	// BothLengths: Content-Length and Transfer-Encoding (RFC 9112 §6.3).
	BothLengths
	// TransferEncodingHTTP10: Transfer-Encoding on an HTTP/1.0 request
	// (RFC 9112 §6.1).
	TransferEncodingHTTP10
	// FoldedLength: a Content-Length or Transfer-Encoding continued on
	// the next line (obs-fold, RFC 9112 §5.2).
	FoldedLength
	// BadLength: a Content-Length that is not one number of at most
	// 2^63-1, or two that differ.
	BadLength
)

// String is the fault as the 400's message says it.
func (f Fault) String() string {
	switch f {
	case BothLengths:
		return "request has both Content-Length and Transfer-Encoding (RFC 9112 §6.3)"
	case TransferEncodingHTTP10:
		return "HTTP/1.0 request has Transfer-Encoding (RFC 9112 §6.1)"
	case FoldedLength:
		return "request continues Content-Length or Transfer-Encoding on another line (RFC 9112 §5.2)"
	case BadLength:
		return "request has an invalid Content-Length"
	}
	return "request framing is valid"
}

// A Scanner follows the requests of one HTTP/1.x connection through the
// bytes read from it, as net/http reads them: each head (request line and
// fields) and the body its framing gives (Content-Length, or chunked),
// then the next head. It keeps no bytes: a few fields of state, whatever
// the sizes. It stops at the first faulty head, and at bytes that are not
// HTTP/1.x (the HTTP/2 preface, a WebSocket after an upgrade, a head
// net/http refuses and closes the connection on).
//
// Scan runs on one goroutine; Fault may be called from any.
type Scanner struct {
	state state

	// The request line.
	pos     int     // bytes into the method, or the field name
	options bool    // the method so far is a prefix of OPTIONS
	isOpts  bool    // the method is OPTIONS
	star    uint8   // the target so far: 0 none, 1 "*", 2 anything else
	version [9]byte // the version token, up to one byte too long
	vlen    int
	http10  bool

	// The fields.
	nameCL, nameTE bool  // the name so far is a prefix of Content-Length / Transfer-Encoding
	last           field // the field of the line before: a fold continues it
	hasCL, hasTE   bool
	length         uint64 // the Content-Length
	value          uint64 // the Content-Length being read
	digits         int
	afterDigits    bool // a space or tab after the digits: only more of those may follow
	cr             bool // a CR, which only a LF may follow

	// The body.
	remain uint64 // body or chunk bytes still to skip
	hex    int    // hex digits of the chunk size

	heads   int64 // complete heads, OPTIONS * left out
	faultAt atomic.Int64
	fault   atomic.Uint32
}

type state uint8

const (
	stRequestStart state = iota // the first byte of a request line
	stMethod
	stTarget
	stVersion
	stLineStart   // the first byte of a field line, or of the empty line
	stLineStartCR // a CR at the start of a line: the end of the head if a LF follows
	stName
	stLengthValue
	stSkipLine // the rest of a field line that is not Content-Length
	stBody
	stChunkSize
	stChunkExtension
	stChunkData
	stChunkCR
	stChunkLF
	stTrailerStart
	stTrailerCR
	stTrailerLine
	stStopped
)

type field uint8

const (
	fieldOther field = iota
	fieldContentLength
	fieldTransferEncoding
)

const (
	contentLength    = "content-length"
	transferEncoding = "transfer-encoding"
)

// NewScanner returns a Scanner at the start of a connection.
func NewScanner() *Scanner {
	s := &Scanner{}
	s.faultAt.Store(-1)
	return s
}

// Fault is the first faulty request's fault, and the number of requests
// before it on the connection (OPTIONS * left out, which net/http answers
// itself); NoFault and -1 when there is none.
func (s *Scanner) Fault() (Fault, int64) {
	at := s.faultAt.Load()
	if at < 0 {
		return NoFault, -1
	}
	return Fault(s.fault.Load()), at
}

// Stopped reports whether the scanner has stopped following the
// connection: past a faulty head, or past bytes that are not HTTP/1.x.
func (s *Scanner) Stopped() bool { return s.state == stStopped }

// Scan follows p, the next bytes read from the connection.
func (s *Scanner) Scan(p []byte) {
	for i := 0; i < len(p) && s.state != stStopped; {
		switch s.state {
		case stBody, stChunkData:
			k := min(uint64(len(p)-i), s.remain)
			i += int(k)
			s.remain -= k
			if s.remain == 0 {
				if s.state == stBody {
					s.state = stRequestStart
				} else {
					s.state = stChunkCR
				}
			}
			continue
		case stTarget:
			if s.star == 0 {
				break // its first byte
			}
			j := indexSpaceOrLF(p[i:])
			if j < 0 {
				s.star = 2
				return
			}
			if j > 0 {
				s.star = 2
			}
			i += j
		case stSkipLine, stChunkExtension, stTrailerLine:
			j := bytes.IndexByte(p[i:], '\n')
			if j < 0 {
				return
			}
			i += j + 1
			switch s.state {
			case stSkipLine:
				s.state = stLineStart
			case stChunkExtension:
				s.endChunkSize()
			default:
				s.state = stTrailerStart
			}
			continue
		}
		s.step(p[i])
		i++
	}
}

// step takes one byte in any state but those Scan skips through.
func (s *Scanner) step(b byte) {
	switch s.state {
	case stRequestStart:
		if !isToken(b) {
			// net/http refuses a method that is not a token and closes
			// the connection; bytes after a 101 (WebSocket frames)
			// start with a byte that is not one either.
			s.state = stStopped
			return
		}
		s.pos, s.options, s.star, s.vlen = 1, b == 'O', 0, 0
		s.hasCL, s.hasTE, s.length, s.last = false, false, 0, fieldOther
		s.state = stMethod
	case stMethod:
		switch {
		case b == ' ':
			s.isOpts = s.options && s.pos == len("OPTIONS")
			s.state = stTarget
		case !isToken(b):
			s.state = stStopped // net/http: malformed request line, closed
		default:
			s.options = s.options && s.pos < len("OPTIONS") && b == "OPTIONS"[s.pos]
			s.pos++
		}
	case stTarget:
		switch {
		case b == ' ':
			s.state = stVersion
		case b == '\n':
			s.state = stStopped // net/http: malformed request line, closed
		case s.star == 0 && b == '*':
			s.star = 1
		default:
			s.star = 2
		}
	case stVersion:
		if b != '\n' {
			if s.vlen < len(s.version) {
				s.version[s.vlen] = b
			}
			s.vlen++
			return
		}
		v := s.version[:min(s.vlen, len(s.version))]
		if s.vlen > 0 && v[len(v)-1] == '\r' {
			v = v[:len(v)-1]
		}
		// net/http serves HTTP/1.0 and HTTP/1.1 to HTTP/1.9 (all as
		// HTTP/1.1); any other version is HTTP/2's preface (the
		// connection is HTTP/2 from here on) or refused and closed.
		if len(v) != len("HTTP/1.0") || string(v[:7]) != "HTTP/1." || v[7] < '0' || v[7] > '9' {
			s.state = stStopped
			return
		}
		s.http10 = v[7] == '0'
		s.state = stLineStart
	case stLineStart:
		switch b {
		case '\n':
			s.endHead()
		case '\r':
			s.state = stLineStartCR
		case ' ', '\t':
			// obs-fold: net/http joins the line to the field before.
			if s.last != fieldOther {
				s.stop(FoldedLength)
				return
			}
			s.state = stSkipLine
		default:
			b |= 0x20 // lower case for letters; a name's other bytes never match
			s.nameCL, s.nameTE, s.pos = b == contentLength[0], b == transferEncoding[0], 1
			s.state = stName
		}
	case stLineStartCR:
		if b != '\n' {
			s.state = stStopped // net/http: a field name with a CR, closed
			return
		}
		s.endHead()
	case stName:
		switch b {
		case ':':
			s.last = fieldOther
			switch {
			case s.nameCL && s.pos == len(contentLength):
				s.last = fieldContentLength
				s.value, s.digits, s.afterDigits, s.cr = 0, 0, false, false
				s.state = stLengthValue
				return
			case s.nameTE && s.pos == len(transferEncoding):
				s.last = fieldTransferEncoding
				s.hasTE = true
			}
			s.state = stSkipLine
		case '\n':
			s.state = stStopped // net/http: a field line without a colon, closed
		default:
			l := b | 0x20
			s.nameCL = s.nameCL && s.pos < len(contentLength) && l == contentLength[s.pos]
			s.nameTE = s.nameTE && s.pos < len(transferEncoding) && l == transferEncoding[s.pos]
			s.pos++
			if !s.nameCL && !s.nameTE {
				// Another field: its value does not matter (nor whether
				// it has a colon: net/http closes the connection if not).
				s.last = fieldOther
				s.state = stSkipLine
			}
		}
	case stLengthValue:
		s.lengthByte(b)
	case stChunkSize:
		d, ok := hexDigit(b)
		switch {
		case ok && s.hex < 16:
			s.remain = s.remain<<4 | uint64(d)
			s.hex++
		case ok || s.hex == 0:
			s.state = stStopped // net/http: a chunk size too long, or none; closed
		case b == '\n':
			s.endChunkSize()
		default:
			s.state = stChunkExtension // an extension, or spaces: up to the LF
		}
	case stChunkCR:
		if b != '\r' {
			s.state = stStopped // net/http: malformed chunked encoding, closed
			return
		}
		s.state = stChunkLF
	case stChunkLF:
		if b != '\n' {
			s.state = stStopped
			return
		}
		s.state, s.remain, s.hex = stChunkSize, 0, 0
	case stTrailerStart:
		switch b {
		case '\n':
			s.state = stRequestStart
		case '\r':
			s.state = stTrailerCR
		default:
			s.state = stTrailerLine
		}
	case stTrailerCR:
		if b != '\n' {
			s.state = stStopped // net/http: a trailer name with a CR, closed
			return
		}
		s.state = stRequestStart
	}
}

// lengthByte takes one byte of a Content-Length value: spaces or tabs,
// decimal digits, spaces or tabs, an optional CR, the LF.
func (s *Scanner) lengthByte(b byte) {
	if s.cr && b != '\n' {
		s.stop(BadLength)
		return
	}
	switch {
	case b == '\n':
		if s.digits == 0 || (s.hasCL && s.value != s.length) {
			s.stop(BadLength)
			return
		}
		s.hasCL, s.length = true, s.value
		s.state = stLineStart
	case b == '\r':
		s.cr = true
	case b == ' ' || b == '\t':
		s.afterDigits = s.digits > 0
	case b >= '0' && b <= '9' && !s.afterDigits:
		d := uint64(b - '0')
		if s.value > (math.MaxInt64-d)/10 {
			s.stop(BadLength)
			return
		}
		s.value = s.value*10 + d
		s.digits++
	default:
		s.stop(BadLength)
	}
}

// endHead ends a head at its empty line: a faulty one stops the scanner;
// else the body its framing gives comes next.
func (s *Scanner) endHead() {
	switch {
	case s.hasTE && s.http10:
		s.stop(TransferEncodingHTTP10)
		return
	case s.hasTE && s.hasCL:
		s.stop(BothLengths)
		return
	}
	if !(s.isOpts && s.star == 1) {
		s.heads++
	}
	switch {
	case s.hasTE:
		// net/http serves chunked alone (anything else: 501, closed).
		s.state, s.remain, s.hex = stChunkSize, 0, 0
	case s.length > 0:
		s.state, s.remain = stBody, s.length
	default:
		s.state = stRequestStart
	}
}

// endChunkSize ends a chunk-size line: the chunk's data follows, or the
// trailer after the last chunk.
func (s *Scanner) endChunkSize() {
	if s.remain == 0 {
		s.state = stTrailerStart
		return
	}
	s.state = stChunkData
}

// stop records f as the fault of the head being read, and stops.
func (s *Scanner) stop(f Fault) {
	s.fault.Store(uint32(f))
	s.faultAt.Store(s.heads)
	s.state = stStopped
}

// indexSpaceOrLF is the index of the first space or LF in p; -1 if none.
func indexSpaceOrLF(p []byte) int {
	for i, b := range p {
		if b == ' ' || b == '\n' {
			return i
		}
	}
	return -1
}

func hexDigit(b byte) (byte, bool) {
	switch {
	case b >= '0' && b <= '9':
		return b - '0', true
	case b >= 'a' && b <= 'f':
		return b - 'a' + 10, true
	case b >= 'A' && b <= 'F':
		return b - 'A' + 10, true
	}
	return 0, false
}

// isToken reports whether b may be in a token (RFC 9110 §5.6.2), as a
// method must be.
func isToken(b byte) bool {
	switch {
	case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		return true
	}
	return b < 0x80 && strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
}
