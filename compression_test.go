package protorest_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// bigProbe is a reply well over the compression threshold.
func bigProbe() *confv1.Probe {
	p := &confv1.Probe{Name: "big"}
	for i := range 300 {
		p.Tags = append(p.Tags, fmt.Sprintf("tag-%03d", i))
	}
	return p
}

func gunzip(t *testing.T, b []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func unzstd(t *testing.T, b []byte) string {
	t.Helper()
	zr, err := zstd.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestCompressionResponses: a response over the threshold is compressed
// as Accept-Encoding asks, and decodes to the uncompressed JSON; a small
// one, or one to a client that asks for none, is sent as it is.
func TestCompressionResponses(t *testing.T) {
	t.Parallel()
	small := &confv1.Probe{Name: "small"}
	rec := &recorder{reply: func(_ string, req proto.Message) (proto.Message, error) {
		if req.(*confv1.Probe).GetName() == "small" {
			return small, nil
		}
		return bigProbe(), nil
	}}
	gw := newFixture(t, "A", rec, protorest.WithCompression(protorest.Compression{}))
	plain := do(t, gw, "GET", "/v1/probes/big", "")
	if plain.code != 200 || plain.header.Get("Content-Encoding") != "" || len(plain.body) < 3000 || !strings.Contains(plain.header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("no Accept-Encoding: %d %v, %d bytes", plain.code, plain.header, len(plain.body))
	}
	for _, tt := range []struct {
		accept, encoding string
		decode           func(*testing.T, []byte) string
	}{
		{"gzip", "gzip", gunzip},
		{"zstd", "zstd", unzstd},
		{"gzip, zstd", "zstd", unzstd},
		{"zstd;q=0.5, gzip", "gzip", gunzip},
	} {
		r := do(t, gw, "GET", "/v1/probes/big", "", "Accept-Encoding", tt.accept)
		if r.code != 200 || r.header.Get("Content-Encoding") != tt.encoding || len(r.body) >= len(plain.body)/2 {
			t.Errorf("%s: %d %v, %d bytes (plain %d)", tt.accept, r.code, r.header, len(r.body), len(plain.body))
			continue
		}
		if got := tt.decode(t, []byte(r.body)); got != plain.body {
			t.Errorf("%s: decodes to %.80s…, want %.80s…", tt.accept, got, plain.body)
		}
	}
	if r := do(t, gw, "GET", "/v1/probes/small", "", "Accept-Encoding", "gzip"); r.header.Get("Content-Encoding") != "" || !strings.Contains(r.body, `"small"`) {
		t.Errorf("a small response: %v %q", r.header, r.body)
	}
}

// TestCompressionRequests: gzip and zstd request bodies are decoded; the
// body limit applies to the decoded size (a zip bomb gets 413 and the
// method is not called); another coding is 415, a corrupt body 400.
func TestCompressionRequests(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	gw := newFixture(t, "A", rec, protorest.WithCompression(protorest.Compression{}), protorest.WithMaxRequestBodySize(1<<20))
	body := `{"name":"zipped","tags":["a","b"]}`
	var gz, zs bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(body))
	zw.Close()
	enc, _ := zstd.NewWriter(&zs)
	enc.Write([]byte(body))
	enc.Close()
	for coding, data := range map[string][]byte{"gzip": gz.Bytes(), "zstd": zs.Bytes()} {
		r := do(t, gw, "POST", "/v1/probes", string(data), "Content-Encoding", coding, "Content-Type", "application/json")
		got := rec.last(t).req.(*confv1.Probe)
		if r.code != 200 || got.GetName() != "zipped" || len(got.GetTags()) != 2 {
			t.Errorf("%s: %d %s; the method got %v", coding, r.code, r.body, got)
		}
	}

	calls := rec.count()
	var bomb bytes.Buffer
	zw = gzip.NewWriter(&bomb)
	zw.Write([]byte(`{"name":"`))
	zw.Write(bytes.Repeat([]byte("a"), 64<<20))
	zw.Write([]byte(`"}`))
	zw.Close()
	r := do(t, gw, "POST", "/v1/probes", bomb.String(), "Content-Encoding", "gzip")
	if r.code != 413 || !strings.Contains(r.body, `"code":8`) || rec.count() != calls || bomb.Len() > 1<<20 {
		t.Errorf("zip bomb (%d bytes, 64 MiB decoded): %d %s; calls %d → %d", bomb.Len(), r.code, r.body, calls, rec.count())
	}
	r = do(t, gw, "POST", "/v1/probes", body, "Content-Encoding", "br")
	if r.code != 415 || r.header.Get("Accept-Encoding") != "gzip, zstd" || !strings.Contains(r.body, `"code":12`) {
		t.Errorf("br: %d %v %s", r.code, r.header, r.body)
	}
	r = do(t, gw, "POST", "/v1/probes", body, "Content-Encoding", "gzip")
	if r.code != 400 || !strings.Contains(r.body, `"code":3`) {
		t.Errorf("a body that is not gzip: %d %s", r.code, r.body)
	}
	if rec.count() != calls {
		t.Errorf("bad bodies called the method: %d → %d", calls, rec.count())
	}
}

// slowWatch sends one message of a server stream, then waits for the
// client to leave.
type slowWatch struct{ *streamer }

func (s slowWatch) Watch(req *confv1.Probe, stream grpc.ServerStreamingServer[confv1.Probe]) error {
	if err := stream.Send(bigProbe()); err != nil {
		return err
	}
	<-stream.Context().Done()
	return nil
}

// TestCompressionStreams: a compressed server stream still streams: its
// first message arrives, decoded, while the stream is open.
func TestCompressionStreams(t *testing.T) {
	t.Parallel()
	gw := protorest.NewGateway(protorest.WithCompression(protorest.Compression{}))
	confv1.RegisterProbesServer(gw, slowWatch{newStreamer()})
	srv := httptest.NewServer(gw)
	defer srv.Close()
	for _, coding := range []string{"gzip", "zstd"} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v1/watch/w", nil)
		req.Header.Set("Accept-Encoding", coding)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var rd io.Reader
		switch coding {
		case "gzip":
			rd, err = gzip.NewReader(resp.Body)
		default:
			rd, err = zstd.NewReader(resp.Body)
		}
		if err != nil || resp.Header.Get("Content-Encoding") != coding {
			t.Fatalf("%s: %v %v", coding, resp.Header, err)
		}
		line, err := bufio.NewReader(rd).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, `{"result":{"name":"big"`) {
			t.Errorf("%s: first message %.60q, %v", coding, line, err)
		}
		cancel()
		resp.Body.Close()
	}
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
