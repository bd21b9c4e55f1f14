package protorest_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// passThroughServer serves, over h2c, a gateway with GRPCPassThrough to a
// real gRPC backend of conf.v1.Probes that it also registers remote, and
// returns its URL and the count of calls the backend received.
func passThroughServer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := grpc.NewServer(grpc.StatsHandler(rpcCounter{&calls}))
	confv1.RegisterProbesServer(srv, metadataProbes{newStreamer()})
	reflection.Register(srv)
	conn := dial(t, serveGRPC(t, srv))
	gw := protorest.NewGateway()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := gw.RegisterRemote(ctx, conn, protorest.WithReflection("conf.v1.Probes")); err != nil {
		t.Fatal(err)
	}
	return h2cServer(t, gw.GRPCPassThrough(conn)).URL, &calls
}

// TestProtocolsPassThroughCodecs: behind GRPCPassThrough, gRPC in JSON
// (application/grpc+json) is decoded as JSON, not forwarded as if it were
// binary; a codec no one speaks (application/grpc+foo) is refused with
// 415 and never reaches the backend; binary gRPC still passes through.
func TestProtocolsPassThroughCodecs(t *testing.T) {
	url, calls := passThroughServer(t)
	for name, opts := range map[string][]connect.ClientOption{
		"grpc+json":  {connect.WithGRPC(), connect.WithProtoJSON()},
		"grpc+proto": {connect.WithGRPC()},
	} {
		t.Run(name, func(t *testing.T) {
			client := probesClient(url, "GetProbe", protocolClient{http: h2cClient(), opts: opts})
			resp, err := client.CallUnary(context.Background(), connect.NewRequest(&confv1.Probe{Name: "json", Tags: []string{"x-a"}}))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Msg.GetName() != "json" {
				t.Errorf("response %v", resp.Msg)
			}
		})
	}

	before := calls.Load()
	req, _ := http.NewRequest(http.MethodPost, url+"/conf.v1.Probes/GetProbe", strings.NewReader("\x00\x00\x00\x00\x00"))
	req.Header.Set("Content-Type", "application/grpc+foo")
	req.Header.Set("Te", "trailers")
	resp, err := h2cClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("application/grpc+foo: %d, want 415", resp.StatusCode)
	}
	if calls.Load() != before {
		t.Errorf("application/grpc+foo reached the backend")
	}
}

// TestProtocolsCanonicalPathRefusals: a POST of a Content-Type no
// protocol speaks to a method's canonical path is 415, not REST's 404;
// a gRPC call of a method the gateway does not know is UNIMPLEMENTED, in
// gRPC's terms, with or without the pass-through.
func TestProtocolsCanonicalPathRefusals(t *testing.T) {
	ptURL, _ := passThroughServer(t)
	urls := protocolGateways(t)
	urls["pass-through"] = ptURL
	for kind, url := range urls {
		t.Run(kind, func(t *testing.T) {
			resp, _ := send(t, http.MethodPost, url+"/conf.v1.Probes/GetProbe", "\xff\xd8", "Content-Type", "image/jpeg")
			if resp.StatusCode != http.StatusUnsupportedMediaType {
				t.Errorf("image/jpeg: %d, want 415", resp.StatusCode)
			}
			conn := dial(t, strings.TrimPrefix(url, "http://"))
			err := conn.Invoke(context.Background(), "/conf.v1.Probes/NoSuchMethod", &confv1.Probe{}, new(confv1.Probe))
			if status.Code(err) != codes.Unimplemented {
				t.Errorf("unknown method: %v, want Unimplemented", err)
			}
		})
	}
}

// TestProtocolsGRPCDeadline: a gRPC call whose deadline passes while the
// method runs ends with grpc-status 4 in its trailers, in-process and
// remote, with and without the pass-through.
func TestProtocolsGRPCDeadline(t *testing.T) {
	ptURL, _ := passThroughServer(t)
	urls := protocolGateways(t)
	urls["pass-through"] = ptURL
	body, err := proto.Marshal(&confv1.Probe{Flag: true}) // Watch waits for its end
	if err != nil {
		t.Fatal(err)
	}
	for kind, url := range urls {
		t.Run(kind, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, url+"/conf.v1.Probes/Watch", bytes.NewReader(envelope(0, body)))
			req.Header.Set("Content-Type", "application/grpc")
			req.Header.Set("Te", "trailers")
			req.Header.Set("Grpc-Timeout", "100m")
			resp, err := h2cClient().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			got := resp.Trailer.Get("Grpc-Status")
			if got == "" {
				got = resp.Header.Get("Grpc-Status")
			}
			if resp.StatusCode != http.StatusOK || got != "4" {
				t.Errorf("%d, grpc-status %q (header %v, trailer %v); want 4", resp.StatusCode, got, resp.Header, resp.Trailer)
			}
		})
	}
}

// TestProtocolsPassThroughZstd: behind GRPCPassThrough, a gRPC call
// compressed with zstd, which the pass-through's grpc.Server cannot
// decode, is served by the gateway.
func TestProtocolsPassThroughZstd(t *testing.T) {
	url, _ := passThroughServer(t)
	p := protocolClient{http: h2cClient(), opts: append([]connect.ClientOption{connect.WithGRPC()}, zstdClient()...)}
	long := strings.Repeat("zstd ", 300)
	resp, err := probesClient(url, "GetProbe", p).CallUnary(context.Background(), connect.NewRequest(&confv1.Probe{Name: long}))
	if err != nil || resp.Msg.GetName() != long {
		t.Fatalf("%v", err)
	}
}
