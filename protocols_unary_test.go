package protorest_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/klauspost/compress/zstd"
	"google.golang.org/genproto/googleapis/rpc/errdetails"

	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// TestProtocolsUnary calls a unary method in-process and remote over
// Connect and gRPC-Web with a connect-go client: the request and the
// metadata reach the method, the response and its header metadata come
// back, and an error keeps its code and message.
func TestProtocolsUnary(t *testing.T) {
	for _, kind := range []string{"in-process", "remote"} {
		srv := httptest.NewServer(probesGateway(t, kind, metadataProbes{newStreamer()}))
		t.Cleanup(srv.Close)
		for name, opts := range connectProtocols {
			t.Run(kind+"/"+name, func(t *testing.T) {
				client := connect.NewClient[confv1.Probe, confv1.Probe](srv.Client(), srv.URL+"/conf.v1.Probes/GetProbe", opts...)
				req := connect.NewRequest(&confv1.Probe{Name: "status-201", Tags: []string{"x-custom", "connect-protocol-version"}})
				req.Header().Set("X-Custom", "v1")
				resp, err := client.CallUnary(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if got := resp.Msg.GetName(); got != "status-201" {
					t.Errorf("name %q", got)
				}
				if tags := resp.Msg.GetTags(); len(tags) != 1 || tags[0] != "x-custom=v1" {
					t.Errorf("metadata seen by the method: %q, want only x-custom=v1", tags)
				}
				if got := resp.Header().Get("X-Http-Code"); got != "201" {
					t.Errorf("header metadata x-http-code %q", got)
				}

				_, err = client.CallUnary(context.Background(), connect.NewRequest(&confv1.Probe{Name: "denied"}))
				var ce *connect.Error
				if !errors.As(err, &ce) || ce.Code() != connect.CodePermissionDenied || ce.Message() != "no" {
					t.Fatalf("error %v, want permission_denied: no", err)
				}
			})
		}
	}
}

// TestProtocolsUnaryErrorDetails: a method's error details reach a
// connect-go client over each protocol.
func TestProtocolsUnaryErrorDetails(t *testing.T) {
	for _, kind := range []string{"in-process", "remote"} {
		srv := httptest.NewServer(probesGateway(t, kind, newStreamer()))
		t.Cleanup(srv.Close)
		for name, opts := range connectProtocols {
			t.Run(kind+"/"+name, func(t *testing.T) {
				client := connect.NewClient[confv1.Probe, confv1.Probe](srv.Client(), srv.URL+"/conf.v1.Probes/Watch", opts...)
				stream, err := client.CallServerStream(context.Background(), connect.NewRequest(&confv1.Probe{Name: "fail-before"}))
				if err != nil {
					t.Fatal(err)
				}
				for stream.Receive() {
					t.Errorf("message %v", stream.Msg())
				}
				var ce *connect.Error
				if !errors.As(stream.Err(), &ce) || ce.Code() != connect.CodeNotFound {
					t.Fatalf("error %v, want not_found", stream.Err())
				}
				if len(ce.Details()) != 1 {
					t.Fatalf("%d details", len(ce.Details()))
				}
				v, err := ce.Details()[0].Value()
				if ri, ok := v.(*errdetails.ResourceInfo); err != nil || !ok || ri.GetResourceName() != "fail-before" {
					t.Errorf("detail %v (%v)", v, err)
				}
			})
		}
	}
}

// TestProtocolsGzip: requests compressed with gzip are read, and
// responses compressed for a client that accepts gzip, over every
// protocol, in-process and remote; a stream's messages too.
func TestProtocolsGzip(t *testing.T) {
	for kind, url := range protocolGateways(t) {
		for name, p := range protocolClients() {
			t.Run(kind+"/"+name, func(t *testing.T) {
				p.opts = append(p.opts[:len(p.opts):len(p.opts)], connect.WithSendGzip(), connect.WithCompressMinBytes(1))
				long := strings.Repeat("compressible ", 200)
				resp, err := probesClient(url, "GetProbe", p).CallUnary(context.Background(), connect.NewRequest(&confv1.Probe{Name: long}))
				if err != nil {
					t.Fatal(err)
				}
				if resp.Msg.GetName() != long {
					t.Errorf("name of %d bytes", len(resp.Msg.GetName()))
				}
				stream := probesClient(url, "BulkCreate", p).CallClientStream(context.Background())
				for range 3 {
					if err := stream.Send(&confv1.Probe{Name: "zz"}); err != nil {
						t.Fatal(err)
					}
				}
				got, err := stream.CloseAndReceive()
				if err != nil || got.Msg.GetI32() != 3 {
					t.Fatalf("client stream: %v, %v", got, err)
				}
			})
		}
	}
}

// zstdClient adds zstd to a connect-go client's compressions, sending
// with it.
func zstdClient() []connect.ClientOption {
	return []connect.ClientOption{
		connect.WithAcceptCompression("zstd",
			func() connect.Decompressor { d, _ := zstd.NewReader(nil); return zstdReader{d} },
			func() connect.Compressor { e, _ := zstd.NewWriter(nil); return e }),
		connect.WithSendCompression("zstd"), connect.WithCompressMinBytes(1),
	}
}

type zstdReader struct{ *zstd.Decoder }

func (zstdReader) Close() error { return nil }

// TestProtocolsZstd: zstd, beside gzip, both ways, over every protocol.
func TestProtocolsZstd(t *testing.T) {
	for kind, url := range protocolGateways(t) {
		for name, p := range protocolClients() {
			t.Run(kind+"/"+name, func(t *testing.T) {
				p.opts = append(p.opts[:len(p.opts):len(p.opts)], zstdClient()...)
				long := strings.Repeat("zstd ", 300)
				resp, err := probesClient(url, "GetProbe", p).CallUnary(context.Background(), connect.NewRequest(&confv1.Probe{Name: long}))
				if err != nil {
					t.Fatal(err)
				}
				if resp.Msg.GetName() != long {
					t.Errorf("name of %d bytes", len(resp.Msg.GetName()))
				}
			})
		}
	}
}

// TestProtocolsEmptyMessage: an empty request message (no bytes, which
// connect-go hands over without decoding) reaches the method, in-process
// and remote, over every protocol; a backend's UNIMPLEMENTED comes back
// as it is.
func TestProtocolsEmptyMessage(t *testing.T) {
	for kind, url := range protocolGateways(t) {
		unimplemented := h2cServer(t, probesGateway(t, kind, newStreamer())).URL
		for name, p := range protocolClients() {
			t.Run(kind+"/"+name, func(t *testing.T) {
				resp, err := probesClient(url, "GetProbe", p).CallUnary(context.Background(), connect.NewRequest(&confv1.Probe{}))
				if err != nil || resp.Msg.GetName() != "" {
					t.Fatalf("%v, %v", resp, err)
				}
				_, err = probesClient(unimplemented, "GetProbe", p).CallUnary(context.Background(), connect.NewRequest(&confv1.Probe{}))
				if connect.CodeOf(err) != connect.CodeUnimplemented {
					t.Errorf("%v, want unimplemented", err)
				}
			})
		}
	}
}
