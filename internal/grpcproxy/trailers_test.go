package grpcproxy_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net/http"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/grpcproxy"
)

// TestProxyHeadersDeclareNoTrailers: the proxy's response headers are a
// gRPC server's, without the Trailer header grpc-go's ServeHTTP declares
// its status in, so a client that reads the headers and stops (its
// deadline passed) has no trailer names with no value; the status, its
// message and details, and the upstream's trailers still come as
// trailers.
func TestProxyHeadersDeclareNoTrailers(t *testing.T) {
	t.Parallel()
	_, addr := startProxyAt(t, grpcproxy.Settings{})

	t.Run("grpc-go", func(t *testing.T) {
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		c := testgrpc.NewTestServiceClient(conn)
		var header, trailer metadata.MD
		_, err = c.UnaryCall(context.Background(), &testgrpc.SimpleRequest{Payload: &testgrpc.Payload{Body: []byte("hi")}},
			grpc.Header(&header), grpc.Trailer(&trailer))
		if err != nil {
			t.Fatal(err)
		}
		if v := header.Get("trailer"); len(v) > 0 {
			t.Errorf("header metadata has trailer %q", v)
		}
		if v := trailer.Get("x-up-trailer"); len(v) != 1 || v[0] != "t" {
			t.Errorf("trailer metadata %v", trailer)
		}
	})

	h2c := new(http.Protocols)
	h2c.SetUnencryptedHTTP2(true)
	client := &http.Client{Transport: &http.Transport{Protocols: h2c}}
	for _, tc := range []struct {
		body               string
		status, message    string
		details, upTrailer bool
	}{
		{body: "hi", status: "0", upTrailer: true},
		{body: "fail", status: "9", message: "told to fail", details: true},
	} {
		t.Run("raw/"+tc.body, func(t *testing.T) {
			msg, err := proto.Marshal(&testgrpc.SimpleRequest{Payload: &testgrpc.Payload{Body: []byte(tc.body)}})
			if err != nil {
				t.Fatal(err)
			}
			frame := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/grpc.testing.TestService/UnaryCall",
				bytes.NewReader(append(frame, msg...)))
			req.Header.Set("Content-Type", "application/grpc")
			req.Header.Set("Te", "trailers")
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			// Go's client moves a Trailer header's names into
			// res.Trailer, with no value, as the headers arrive.
			if len(res.Trailer) != 0 {
				t.Errorf("trailer names before the body's end: %v", res.Trailer)
			}
			if _, err := io.Copy(io.Discard, res.Body); err != nil {
				t.Fatal(err)
			}
			got := res.Trailer
			if got.Get("Grpc-Status") != tc.status || got.Get("Grpc-Message") != tc.message {
				t.Errorf("trailers %v: want grpc-status %q, grpc-message %q", got, tc.status, tc.message)
			}
			if (got.Get("Grpc-Status-Details-Bin") != "") != tc.details || (got.Get("X-Up-Trailer") == "t") != tc.upTrailer {
				t.Errorf("trailers %v: want details %v, x-up-trailer %v", got, tc.details, tc.upTrailer)
			}
			if res.Header.Get("Grpc-Status") != "" {
				t.Errorf("grpc-status in the headers too: %v", res.Header)
			}
		})
	}
}
