package h1framing

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A head as a browser or curl sends it: request line, nine fields.
const benchHead = "GET /v1/shelves/fiction/books/dune?view=full HTTP/1.1\r\nHost: api.example.com\r\n" +
	"User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36\r\n" +
	"Accept: application/json\r\nAccept-Encoding: gzip, deflate, br\r\nAccept-Language: en-US,en;q=0.9\r\n" +
	"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl\r\n" +
	"Cookie: session=0123456789abcdef; theme=dark\r\nX-Request-Id: 7f1c0e8a-3a4b-4c5d-9e6f-0a1b2c3d4e5f\r\n" +
	"Connection: keep-alive\r\n\r\n"

func BenchmarkScanner(b *testing.B) {
	body := strings.Repeat("x", 4096)
	post := "POST" + strings.TrimSuffix(strings.TrimPrefix(benchHead, "GET"), "\r\n")
	for _, bc := range []struct{ name, in string }{
		{"GET", benchHead},
		{"POST 4KiB", post + "Content-Length: 4096\r\n\r\n" + body},
		{"chunked 4KiB", post + "Transfer-Encoding: chunked\r\n\r\n1000\r\n" + body + "\r\n0\r\n\r\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			in := []byte(bc.in)
			s := NewScanner()
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				s.Scan(in)
			}
			if s.Stopped() || s.heads == 0 {
				b.Fatal("the scanner stopped")
			}
		})
	}
}

// BenchmarkServe is one keep-alive HTTP/1.1 client's requests to an
// http.Server on loopback with a handler that writes nothing: its own
// listener and handler ("net/http"), and NewListener, ConnContext and
// Guard around them ("h1framing").
func BenchmarkServe(b *testing.B) {
	for _, guarded := range []bool{false, true} {
		name := map[bool]string{false: "net/http", true: "h1framing"}[guarded]
		b.Run(name, func(b *testing.B) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			srv := &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})}
			served := l
			if guarded {
				srv.Handler, srv.ConnContext, served = Guard(srv.Handler), ConnContext, NewListener(l)
			}
			go srv.Serve(served)
			defer srv.Close()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 5 * time.Second}
			url := "http://" + l.Addr().String() + "/v1/shelves/fiction/books/dune"
			b.ReportAllocs()
			for b.Loop() {
				resp, err := client.Get(url)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

// BenchmarkConnReadHTTP2 is a Conn's Read once the scanner has stopped at
// the HTTP/2 preface, against the connection's own Read.
func BenchmarkConnReadHTTP2(b *testing.B) {
	frames := make([]byte, 16<<10)
	for _, wrapped := range []bool{false, true} {
		b.Run(map[bool]string{false: "net.Conn", true: "Conn"}[wrapped], func(b *testing.B) {
			var c net.Conn = &endless{data: frames}
			if wrapped {
				fc := NewConn(c)
				fc.scan.Scan([]byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"))
				c = fc
			}
			p := make([]byte, len(frames))
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			for b.Loop() {
				c.Read(p)
			}
		})
	}
}

// endless is a net.Conn whose reads copy data, for ever.
type endless struct {
	net.Conn
	data []byte
}

func (e *endless) Read(p []byte) (int, error) { return copy(p, e.data), nil }
