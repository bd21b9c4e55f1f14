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
