package main

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"

	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// bigHeader answers GetProbe named "N" with header metadata x-big of N
// bytes.
type bigHeader struct {
	confv1.UnimplementedProbesServer
}

func (bigHeader) GetProbe(ctx context.Context, req *confv1.Probe) (*confv1.Probe, error) {
	n, _ := strconv.Atoi(req.GetName())
	grpc.SetHeader(ctx, metadata.Pairs("x-big", strings.Repeat("b", n)))
	return &confv1.Probe{Name: "ok"}, nil
}

// TestServeUpstreamHeaderLimit: an upstream's response metadata over
// --max-upstream-header-bytes (64KiB) gets 502 INTERNAL with a
// google.rpc.Status body (70 KB); over it and 16KiB more (1 MiB) the
// upstream connection advertises that it takes no more, and a grpc-go
// upstream resets the call instead of sending it: 500 INTERNAL, grpc-go's
// "stream terminated by RST_STREAM". Within the limit the metadata is
// passed on; with 0, there is no limit.
func TestServeUpstreamHeaderLimit(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer()
	confv1.RegisterProbesServer(srv, bigHeader{})
	reflection.Register(srv)
	addr := serveGRPC(t, srv)
	limited := startServe(t, "--upstream", addr, "--access-log=false")
	unlimited := startServe(t, "--upstream", addr, "--access-log=false", "--max-upstream-header-bytes", "0")
	for _, tt := range []struct {
		s      *served
		n      int
		status int
	}{
		{limited, 1 << 20, 500},
		{limited, 70000, 502},
		{limited, 60000, 200},
		{unlimited, 1 << 20, 200},
	} {
		resp, err := http.Get(tt.s.url + "/v1/probes/" + strconv.Itoa(tt.n))
		if err != nil {
			t.Fatal(err)
		}
		var body strings.Builder
		io.Copy(&body, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status || (tt.status != 200) != strings.Contains(body.String(), `"code":13`) {
			t.Errorf("%d bytes of header metadata: %d %.200s; want %d", tt.n, resp.StatusCode, body.String(), tt.status)
		}
		if got := len(resp.Header.Get("Grpc-Metadata-X-Big")); (tt.status == 200) != (got == tt.n) {
			t.Errorf("%d bytes of header metadata: %d passed on", tt.n, got)
		}
	}
}
