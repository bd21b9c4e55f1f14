package protorest_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// encode returns s in a content coding: gzip or zstd.
func encode(coding, s string) string {
	var b bytes.Buffer
	var w io.WriteCloser
	switch coding {
	case "gzip":
		w = gzip.NewWriter(&b)
	case "zstd":
		w, _ = zstd.NewWriter(&b)
	default:
		panic("no coding " + coding)
	}
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

// zstdBomb is a zstd body that decodes to {"name":" and n zero bytes.
func zstdBomb(n int) string {
	var b bytes.Buffer
	zw, _ := zstd.NewWriter(&b, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	zw.Write([]byte(`{"name":"`))
	zw.Write(make([]byte, n))
	zw.Close()
	return b.String()
}

// TestRequestContentCodings: gzip and zstd request bodies are decoded for
// every way into a method (a JSON or binary message, a
// google.api.HttpBody, client and bidirectional streams, the HttpBody
// stream), with or without WithCompression, in-process and remote; an
// unknown coding, or two, get 415 with Accept-Encoding; a body that does
// not decode gets 400 saying so; one that inflates past the limit 413.
// Neither reaches the method.
func TestRequestContentCodings(t *testing.T) {
	t.Parallel()
	binary, _ := proto.Marshal(&confv1.Probe{Name: "binary"})
	for _, mode := range []string{"in-process", "remote"} {
		e := newHostileEnv(t, mode)
		for gw, url := range map[string]string{"without WithCompression": e.plainURL, "with WithCompression": e.url} {
			for _, coding := range []string{"gzip", "zstd"} {
				name := mode + "/" + gw + "/" + coding
				calls := e.calls()
				got := fetch(t, "POST", url+"/v1/probes", encode(coding, `{"name":"zipped"}`), "Content-Encoding", coding)
				if c := e.backend.lastCall(); got.code != 200 || c.method != "CreateProbe" || c.name != "zipped" {
					t.Errorf("%s: JSON: %d %s; the method got %+v", name, got.code, got.body, c)
				}
				got = fetch(t, "POST", url+"/v1/probes", encode(coding, string(binary)), "Content-Encoding", coding, "Content-Type", "application/x-protobuf")
				if c := e.backend.lastCall(); got.code != 200 || c.name != "binary" {
					t.Errorf("%s: binary: %d %q; the method got %+v", name, got.code, got.body, c)
				}
				raw := "raw \x00\xff bytes"
				got = fetch(t, "POST", url+"/v1/raw", encode(coding, raw), "Content-Encoding", coding, "Content-Type", "application/octet-stream")
				if got.code != 200 || got.body != raw || got.header.Get("Content-Type") != "application/octet-stream" {
					t.Errorf("%s: HttpBody: %d %q %v", name, got.code, got.body, got.header)
				}
				got = fetch(t, "POST", url+"/v1/bulk", encode(coding, "{\"name\":\"a\"}\n{\"name\":\"b\"}\n"), "Content-Encoding", coding)
				if got.code != 200 || !strings.Contains(got.body, `"name":"a,b"`) {
					t.Errorf("%s: client stream: %d %s", name, got.code, got.body)
				}
				got = fetch(t, "POST", url+"/v1/chat", encode(coding, "{\"name\":\"a\"}\n"), "Content-Encoding", coding)
				if got.code != 200 || !strings.Contains(got.body, `"name":"re: a"`) {
					t.Errorf("%s: bidi stream: %d %s", name, got.code, got.body)
				}
				upload := strings.Repeat("0123456789", 300<<10) // 3,072,000 bytes: several chunks
				got = fetch(t, "POST", url+"/v1/stream-uploads/doc", encode(coding, upload), "Content-Encoding", coding, "Content-Type", "text/plain")
				if got.code != 200 || !strings.Contains(got.body, `"id":"3072000"`) || !strings.Contains(got.body, `doc;text/plain|`) {
					t.Errorf("%s: HttpBody stream: %d %.300s", name, got.code, got.body)
				}
				if n := e.calls() - calls; n != 6 {
					t.Errorf("%s: %d calls, want 6", name, n)
				}
			}

			calls := e.calls()
			for _, coding := range []string{"br", "deflate", "compress", "gzip, zstd", "zstd, identity, gzip"} {
				got := fetch(t, "POST", url+"/v1/probes", `{}`, "Content-Encoding", coding)
				if got.code != 415 || got.header.Get("Accept-Encoding") != "gzip, zstd" || !strings.Contains(got.body, `"code":12`) {
					t.Errorf("%s/%s: %s: %d %v %s", mode, gw, coding, got.code, got.header, got.body)
				}
			}
			for _, bad := range []struct{ coding, body, says string }{
				{"gzip", `{"name":"not gzip"}`, "not valid gzip"},
				{"gzip", encode("gzip", `{"name":"cut short"}`)[:20], "not valid gzip"},
				{"gzip", encode("gzip", `{}`)[:10] + "\xff\xff\xff\xff", "not valid gzip"},
				{"zstd", `{"name":"not zstd"}`, "not valid zstd"},
				{"zstd", encode("zstd", `{"name":"cut short"}`)[:12], "not valid zstd"},
			} {
				got := fetch(t, "POST", url+"/v1/probes", bad.body, "Content-Encoding", bad.coding)
				if got.code != 400 || !strings.Contains(got.body, `"code":3`) || !strings.Contains(got.body, bad.says) {
					t.Errorf("%s/%s: %s %q: %d %s", mode, gw, bad.coding, bad.body, got.code, got.body)
				}
			}
			bombs := map[string]string{"gzip": gzipBomb(64 << 20), "zstd": zstdBomb(64 << 20)}
			for coding, bomb := range bombs {
				got := fetch(t, "POST", url+"/v1/probes", bomb, "Content-Encoding", coding)
				if got.code != 413 || !strings.Contains(got.body, `"code":8`) || len(bomb) > 1<<20 {
					t.Errorf("%s/%s: %s bomb (%d bytes, 64 MiB decoded): %d %s", mode, gw, coding, len(bomb), got.code, got.body)
				}
			}
			if n := e.calls() - calls; n != 0 {
				t.Errorf("%s/%s: bodies that do not decode called the method %d times", mode, gw, n)
			}
			// A stream's call starts before its first message is read; the
			// one that inflates past the limit ends it.
			for coding, bomb := range bombs {
				got := fetch(t, "POST", url+"/v1/bulk", bomb, "Content-Encoding", coding)
				if got.code != 413 || !strings.Contains(got.body, `"code":8`) {
					t.Errorf("%s/%s: %s bomb to a client stream: %d %s", mode, gw, coding, got.code, got.body)
				}
			}
			// A remote stream's call may reach the backend after its
			// client has its 413: let it land before the next count.
			settleCalls(e)
		}
	}
}

// settleCalls waits until e's backend has seen no new call for 200 ms
// (at most 5 s).
func settleCalls(e *hostileEnv) {
	deadline := time.Now().Add(5 * time.Second)
	for n := e.calls(); time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		m := e.calls()
		if m == n {
			return
		}
		n = m
	}
}

// TestContentCodingsCustomRoutes: a HandlePath route reads the body as it
// was sent, Content-Encoding and all; under WithCompression, as it
// decodes.
func TestContentCodingsCustomRoutes(t *testing.T) {
	t.Parallel()
	echo := func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		w.Header().Set("X-Got-Encoding", r.Header.Get("Content-Encoding"))
		w.Write(b)
	}
	for _, tt := range []struct {
		name         string
		opts         []protorest.Option
		body, coding string // what the handler gets
	}{
		{"without WithCompression", nil, encode("gzip", "hello"), "gzip"},
		{"with WithCompression", []protorest.Option{protorest.WithCompression(protorest.Compression{})}, "hello", ""},
	} {
		gw := protorest.NewGateway(tt.opts...)
		if err := gw.HandlePath("POST", "/echo", echo); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(gw)
		got := fetch(t, "POST", srv.URL+"/echo", encode("gzip", "hello"), "Content-Encoding", "gzip")
		if got.code != 200 || got.body != tt.body || got.header.Get("X-Got-Encoding") != tt.coding {
			t.Errorf("%s: %d %q, Content-Encoding %q; want %q, %q", tt.name, got.code, got.body, got.header.Get("X-Got-Encoding"), tt.body, tt.coding)
		}
		srv.Close()
	}
}
