package h1framing

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
)

func TestScanner(t *testing.T) {
	const (
		get     = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
		post    = "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
		chunked = "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: 1\r\n\r\n"
		options = "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n"
	)
	tests := []struct {
		name    string
		in      string
		fault   Fault
		at      int64 // the requests before the fault
		heads   int64 // without a fault: the heads counted
		stopped bool
	}{
		{name: "one GET", in: get, heads: 1},
		{name: "pipelined", in: get + post + chunked + get, heads: 4},
		{name: "a body that looks like a head", in: "POST /a HTTP/1.1\r\nContent-Length: 61\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: x\r\n\r\n" + get, heads: 2},
		{name: "a chunk that looks like a head", in: "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n29\r\nGET /b HTTP/1.0\r\nTransfer-Encoding: x\r\n\r\n\r\n0\r\n\r\n" + get, heads: 2},
		{name: "bare LF heads", in: "GET /a HTTP/1.1\nHost: x\n\nPOST /b HTTP/1.1\nContent-Length: 1\n\nxGET /c HTTP/1.0\n\n", heads: 3},
		{name: "OPTIONS * not counted", in: options + get + options, heads: 1},
		{name: "OPTIONS /a counted", in: "OPTIONS /a HTTP/1.1\r\n\r\n" + "OPTION * HTTP/1.1\r\n\r\n", heads: 2},
		{name: "both lengths", in: get + "POST /a HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + get, fault: BothLengths, at: 1, stopped: true},
		{name: "both lengths, TE first, any case", in: "POST /a HTTP/1.1\r\ntransfer-ENCODING: chunked\r\ncontent-length: 4\r\n\r\n", fault: BothLengths, at: 0, stopped: true},
		{name: "both lengths after OPTIONS *", in: options + get + options + "POST / HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n", fault: BothLengths, at: 1, stopped: true},
		{name: "HTTP/1.0 chunked", in: "POST /a HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", fault: TransferEncodingHTTP10, at: 0, stopped: true},
		{name: "HTTP/1.0 identity", in: get + "GET /a HTTP/1.0\r\nTransfer-Encoding: identity\r\n\r\n", fault: TransferEncodingHTTP10, at: 1, stopped: true},
		{name: "folded length", in: "POST /a HTTP/1.1\r\nContent-Length: 5\r\n 6\r\n\r\n", fault: FoldedLength, stopped: true},
		{name: "folded other field", in: "GET /a HTTP/1.1\r\nX-A: 5\r\n\t6\r\n\r\n" + get, heads: 2},
		{name: "two equal lengths", in: "POST /a HTTP/1.1\r\nContent-Length: 1\r\nContent-Length:  1 \r\n\r\nx" + get, heads: 2},
		{name: "two lengths", in: "POST /a HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", fault: BadLength, stopped: true},
		{name: "length with a sign", in: "POST /a HTTP/1.1\r\nContent-Length: +1\r\n\r\n", fault: BadLength, stopped: true},
		{name: "empty length", in: "POST /a HTTP/1.1\r\nContent-Length:\r\n\r\n", fault: BadLength, stopped: true},
		{name: "length overflows", in: "POST /a HTTP/1.1\r\nContent-Length: 9223372036854775808\r\n\r\n", fault: BadLength, stopped: true},
		{name: "largest length", in: "POST /a HTTP/1.1\r\nContent-Length: 9223372036854775807\r\n\r\nxyz", heads: 1},
		{name: "HTTP/2 preface", in: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + "POST / HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n", stopped: true},
		{name: "WebSocket frames after an upgrade", in: "GET /ws HTTP/1.1\r\nUpgrade: websocket\r\n\r\n\x81\x85abcdPOST / HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n", heads: 1, stopped: true},
		{name: "HTTP/1.2 is HTTP/1.1", in: "POST /a HTTP/1.2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + get, heads: 2},
		{name: "HTTP/0.9", in: "GET / HTTP/0.9\r\n\r\n", stopped: true},
		{name: "largest chunk", in: "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nabc", heads: 1},
		{name: "chunk size too long", in: "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n", heads: 1, stopped: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Whole, and a byte at a time: the same answer.
			for _, step := range []int{len(tt.in), 1} {
				s := NewScanner()
				for i := 0; i < len(tt.in); i += step {
					s.Scan([]byte(tt.in[i:min(i+step, len(tt.in))]))
				}
				f, at := s.Fault()
				if tt.fault == NoFault {
					tt.at = -1
				}
				if f != tt.fault || at != tt.at {
					t.Errorf("step %d: fault %v at %d, want %v at %d", step, f, at, tt.fault, tt.at)
				}
				if tt.fault == NoFault && s.heads != tt.heads {
					t.Errorf("step %d: %d heads, want %d", step, s.heads, tt.heads)
				}
				if s.Stopped() != tt.stopped {
					t.Errorf("step %d: stopped %v, want %v", step, s.Stopped(), tt.stopped)
				}
			}
		})
	}
}

// refRequest is a request as net/http reads it, and the fault the head it
// read has.
type refRequest struct {
	counted bool // not OPTIONS *
	fault   bool // Content-Length with Transfer-Encoding, or Transfer-Encoding on HTTP/1.0
	folded  bool // a field line continued on the next
}

// reference reads in as a connection net/http's server would: requests
// (http.ReadRequest: the server's reading), each body read whole, until an
// error, a version net/http's server does not serve, or a faulty head
// (after which the Guard closes the connection). It returns them, and
// whether it read every byte of in.
func reference(in []byte) (reqs []refRequest, whole bool) {
	var read countingReader
	read.r = bytes.NewReader(in)
	br := bufio.NewReader(&read)
	for {
		start := read.n - int64(br.Buffered())
		if start == int64(len(in)) {
			return reqs, true
		}
		req, err := http.ReadRequest(br)
		if err != nil || req.ProtoMajor != 1 {
			return reqs, false
		}
		// The fields as net/http read them, before it deleted the ones
		// of the framing.
		tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(in[start:])))
		tp.ReadLine()
		fields, err := tp.ReadMIMEHeader()
		if err != nil {
			return reqs, false
		}
		te, cl := len(fields["Transfer-Encoding"]) > 0, len(fields["Content-Length"]) > 0
		head := in[start:]
		if i := bytes.Index(head, []byte("\n\r\n")); i >= 0 {
			head = head[:i]
		}
		r := refRequest{
			counted: !(req.Method == http.MethodOptions && req.RequestURI == "*"),
			fault:   te && (cl || req.ProtoMinor == 0),
			folded:  bytes.Contains(head, []byte("\n ")) || bytes.Contains(head, []byte("\n\t")),
		}
		reqs = append(reqs, r)
		if r.fault {
			return reqs, false
		}
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return reqs, false
		}
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// maxFuzzInput is where FuzzScanner cuts its inputs: a few requests
// pipelined; longer ones find nothing more, and take the engine longer to
// minimize (golang/go#48820).
const maxFuzzInput = 512

// FuzzScanner compares the Scanner with net/http reading the same bytes:
// the Scanner reports the first faulty head net/http read, after as many
// requests as net/http read before it, and counts every request net/http
// read when it read them all; it reports no fault where net/http read a
// clean head, but for a folded Content-Length or Transfer-Encoding, which
// it refuses and net/http may join. Whole and split in two, the same
// answer.
func FuzzScanner(f *testing.F) {
	for _, seed := range []string{
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;e=1\r\nhello\r\n0\r\nT: v\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /s HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /a HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\nGET /s HTTP/1.1\r\nHost: x\r\n\r\n",
		"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\nHost: x\n\n",
		"GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\nContent-Length: 1\r\n\r\nx",
		"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
	} {
		f.Add([]byte(seed), uint16(len(seed)/2))
	}
	f.Fuzz(func(t *testing.T, in []byte, cut uint16) {
		if len(in) > maxFuzzInput {
			in = in[:maxFuzzInput]
		}
		reqs, whole := reference(in)
		var counted int64
		wantAt := int64(-1)
		for _, r := range reqs {
			if r.fault {
				wantAt = counted
				break
			}
			if r.counted {
				counted++
			}
		}
		split := min(int(cut), len(in))
		for _, parts := range [][][]byte{{in}, {in[:split], in[split:]}} {
			s := NewScanner()
			for _, p := range parts {
				s.Scan(p)
			}
			f, at := s.Fault()
			switch {
			case wantAt >= 0 && (at != wantAt || (f != BothLengths && f != TransferEncodingHTTP10 && f != FoldedLength)):
				t.Fatalf("net/http read a faulty head after %d requests; the scanner: %v after %d\n%q", wantAt, f, at, in)
			case at >= 0 && at < counted && !(f == FoldedLength && reqs[indexOfCounted(reqs, at)].folded):
				t.Fatalf("the scanner reports %v after %d requests, where net/http read a clean one\n%q", f, at, in)
			case wantAt < 0 && at < 0 && whole && s.heads != counted:
				t.Fatalf("net/http read %d requests, the scanner %d\n%q", counted, s.heads, in)
			case wantAt < 0 && at < 0 && s.heads < counted:
				t.Fatalf("net/http read %d requests, the scanner stopped at %d\n%q", counted, s.heads, in)
			}
		}
	})
}

// indexOfCounted is the index in reqs of the request with n counted
// requests before it.
func indexOfCounted(reqs []refRequest, n int64) int {
	for i, r := range reqs {
		if n == 0 && r.counted {
			return i
		}
		if r.counted {
			n--
		}
	}
	return len(reqs) - 1
}

func TestReferenceSeesFaults(t *testing.T) {
	reqs, _ := reference([]byte(strings.Repeat("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 2) + "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"))
	if len(reqs) != 3 || !reqs[2].fault || reqs[1].fault {
		t.Fatalf("reference: %+v", reqs)
	}
}
