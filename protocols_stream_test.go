package protorest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// TestProtocolsServerStream: a server stream's messages, header and
// trailer metadata reach a connect-go client over every protocol and
// transport, and an error after messages ends the stream with its code.
func TestProtocolsServerStream(t *testing.T) {
	for kind, url := range protocolGateways(t) {
		for name, p := range protocolClients() {
			t.Run(kind+"/"+name, func(t *testing.T) {
				client := probesClient(url, "Watch", p)
				stream, err := client.CallServerStream(context.Background(), connect.NewRequest(&confv1.Probe{Name: "w", I32: 3}))
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for stream.Receive() {
					got = append(got, stream.Msg().GetName())
				}
				if err := stream.Err(); err != nil {
					t.Fatal(err)
				}
				if strings.Join(got, ",") != "w-1,w-2,w-3" {
					t.Errorf("messages %q", got)
				}
				if h := stream.ResponseHeader().Get("X-Watch"); h != "yes" {
					t.Errorf("header x-watch %q", h)
				}
				if tr := stream.ResponseTrailer().Get("X-Watch-Trailer"); tr != "done" {
					t.Errorf("trailer x-watch-trailer %q", tr)
				}

				checkFailsAfter(t, client, 2)
			})
		}
	}
}

// TestProtocolsServerStreamUncompressed: a server stream that a client
// takes uncompressed, whose messages after the first the gateway writes
// in envelopes of its own, reaches a connect-go client whole over every
// protocol and transport: many messages, messages larger than the
// buffers a stream keeps (64 KiB), the metadata, and an error after
// messages.
func TestProtocolsServerStreamUncompressed(t *testing.T) {
	for kind, url := range protocolGateways(t) {
		for name, p := range protocolClients() {
			t.Run(kind+"/"+name, func(t *testing.T) {
				p.opts = append(slices.Clip(p.opts), connect.WithAcceptCompression("gzip", nil, nil))
				client := probesClient(url, "Watch", p)
				for _, tt := range []struct {
					n, size int32
				}{{40, 0}, {3, 70 << 10}, {1, 10}} {
					stream, err := client.CallServerStream(context.Background(), connect.NewRequest(&confv1.Probe{Name: "w", I32: tt.n, Id: int64(tt.size)}))
					if err != nil {
						t.Fatal(err)
					}
					var i int32
					for stream.Receive() {
						i++
						if msg := stream.Msg(); msg.GetName() != fmt.Sprintf("w-%d", i) || len(msg.GetBlob()) != int(tt.size) {
							t.Fatalf("message %d: %q, %d bytes of blob", i, msg.GetName(), len(msg.GetBlob()))
						}
					}
					if err := stream.Err(); err != nil || i != tt.n {
						t.Fatalf("%d messages of %d, then %v", i, tt.n, err)
					}
					if tr := stream.ResponseTrailer().Get("X-Watch-Trailer"); tr != "done" {
						t.Errorf("trailer x-watch-trailer %q", tr)
					}
				}
				checkFailsAfter(t, client, 5)
			})
		}
	}
}

// checkFailsAfter: a Watch that fails after n messages reaches client as
// n messages, then INTERNAL "it broke".
func checkFailsAfter(t *testing.T, client *connect.Client[confv1.Probe, confv1.Probe], n int32) {
	t.Helper()
	stream, err := client.CallServerStream(context.Background(), connect.NewRequest(&confv1.Probe{Name: "fail-after", I32: n}))
	if err != nil {
		t.Fatal(err)
	}
	var got int32
	for stream.Receive() {
		got++
	}
	var ce *connect.Error
	if got != n || !errors.As(stream.Err(), &ce) || ce.Code() != connect.CodeInternal || ce.Message() != "it broke" {
		t.Errorf("%d messages, then %v; want %d, then internal: it broke", got, stream.Err(), n)
	}
}

// TestProtocolsClientStream: a client stream's messages reach the method
// in order over every protocol and transport, and its response comes
// back.
func TestProtocolsClientStream(t *testing.T) {
	for kind, url := range protocolGateways(t) {
		for name, p := range protocolClients() {
			t.Run(kind+"/"+name, func(t *testing.T) {
				stream := probesClient(url, "BulkCreate", p).CallClientStream(context.Background())
				for _, n := range []string{"a", "b", "c"} {
					if err := stream.Send(&confv1.Probe{Name: n}); err != nil {
						t.Fatal(err)
					}
				}
				resp, err := stream.CloseAndReceive()
				if err != nil {
					t.Fatal(err)
				}
				if resp.Msg.GetName() != "a,b,c" || resp.Msg.GetI32() != 3 {
					t.Errorf("response %v", resp.Msg)
				}
			})
		}
	}
}

// TestProtocolsBidiStream: over HTTP/2, a bidirectional stream's
// messages go both ways as they are sent, over every protocol.
func TestProtocolsBidiStream(t *testing.T) {
	for kind, url := range protocolGateways(t) {
		for name, p := range protocolClients() {
			if !p.h2 {
				continue
			}
			t.Run(kind+"/"+name, func(t *testing.T) {
				stream := probesClient(url, "Chat", p).CallBidiStream(context.Background())
				for _, n := range []string{"a", "b"} {
					if err := stream.Send(&confv1.Probe{Name: n}); err != nil {
						t.Fatal(err)
					}
					got, err := stream.Receive()
					if err != nil {
						t.Fatal(err)
					}
					if got.GetName() != "re: "+n {
						t.Errorf("reply %q to %q", got.GetName(), n)
					}
				}
				if err := stream.CloseRequest(); err != nil {
					t.Fatal(err)
				}
				if _, err := stream.Receive(); !errors.Is(err, io.EOF) {
					t.Errorf("after the half-close: %v, want io.EOF", err)
				}
				if err := stream.CloseResponse(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestProtocolsDeadline: a client's deadline (Connect-Timeout-Ms,
// grpc-timeout) ends a call that outlives it with deadline_exceeded, over
// every protocol, in-process and remote.
func TestProtocolsDeadline(t *testing.T) {
	for name, p := range protocolClients() {
		for _, kind := range []string{"in-process", "remote"} {
			t.Run(kind+"/"+name, func(t *testing.T) {
				url := h2cServer(t, probesGateway(t, kind, metadataProbes{newStreamer()})).URL
				ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				defer cancel()
				stream, err := probesClient(url, "Watch", p).CallServerStream(ctx, connect.NewRequest(&confv1.Probe{Flag: true}))
				if err == nil {
					for stream.Receive() {
					}
					err = stream.Err()
				}
				if connect.CodeOf(err) != connect.CodeDeadlineExceeded {
					t.Errorf("%v, want deadline_exceeded", err)
				}
			})
		}
	}
}
