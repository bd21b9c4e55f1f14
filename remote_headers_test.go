package protorest_test

import (
	"context"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// bigMetadata answers GetProbe and Watch with a header or trailer of its
// own: a request named "header-N" or "trailer-N" gets x-big, N bytes.
type bigMetadata struct {
	confv1.UnimplementedProbesServer
}

func (bigMetadata) md(name string) (header, trailer metadata.MD) {
	where, n, _ := strings.Cut(name, "-")
	size, _ := strconv.Atoi(n)
	md := metadata.Pairs("x-big", strings.Repeat("b", size))
	if where == "header" {
		return md, nil
	}
	return nil, md
}

func (b bigMetadata) GetProbe(ctx context.Context, req *confv1.Probe) (*confv1.Probe, error) {
	header, trailer := b.md(req.GetName())
	grpc.SetHeader(ctx, header)
	grpc.SetTrailer(ctx, trailer)
	return &confv1.Probe{Name: "ok"}, nil
}

func (b bigMetadata) Watch(req *confv1.Probe, stream grpc.ServerStreamingServer[confv1.Probe]) error {
	header, trailer := b.md(req.GetName())
	stream.SetHeader(header)
	stream.SetTrailer(trailer)
	for range 2 {
		if err := stream.Send(&confv1.Probe{Name: "m"}); err != nil {
			return err
		}
	}
	return nil
}

// TestRemoteHeaderLimit: a remote backend's response metadata, which
// becomes response headers, is held to WithMaxBackendHeaderBytes (64 KiB
// by default): 1 MiB of header metadata used to become a 1 MiB response
// header; now 502 INTERNAL with a google.rpc.Status body, no metadata.
// Metadata within the limit is passed on; a stream's trailer over it
// ends the stream with the error in-band.
func TestRemoteHeaderLimit(t *testing.T) {
	srv := grpc.NewServer()
	confv1.RegisterProbesServer(srv, bigMetadata{})
	reflection.Register(srv)
	conn := dial(t, serveGRPC(t, srv))
	serve := func(opts ...protorest.RemoteOption) string {
		gw := protorest.NewGateway()
		ctx, cancel := context.WithTimeout(context.Background(), 10e9)
		defer cancel()
		if err := gw.RegisterRemote(ctx, conn, append([]protorest.RemoteOption{protorest.WithReflection("conf.v1.Probes")}, opts...)...); err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(gw)
		t.Cleanup(hs.Close)
		return hs.URL
	}
	byDefault, small, unlimited := serve(), serve(protorest.WithMaxBackendHeaderBytes(1000)), serve(protorest.WithMaxBackendHeaderBytes(0))
	tests := []struct {
		name, url, path string
		status          int
		header          bool // x-big reached the client
		inBand          bool // the stream's error, after its messages
	}{
		{"1 MiB header", byDefault, "/v1/probes/header-1048576", 502, false, false},
		{"1 MiB trailer", byDefault, "/v1/probes/trailer-1048576", 502, false, false},
		{"60 KiB header", byDefault, "/v1/probes/header-61440", 200, true, false},
		{"a 1,000-byte limit, 1,000 bytes", small, "/v1/probes/header-1000", 502, false, false},
		{"a 1,000-byte limit, 900 bytes", small, "/v1/probes/header-900", 200, true, false},
		{"no limit, 1 MiB", unlimited, "/v1/probes/header-1048576", 200, true, false},
		{"stream, 1 MiB header", byDefault, "/v1/watch/header-1048576", 502, false, false},
		{"stream, 1 MiB trailer", byDefault, "/v1/watch/trailer-1048576", 200, false, true},
		{"stream, 60 KiB header", byDefault, "/v1/watch/header-61440", 200, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fetch(t, "GET", tt.url+tt.path, "", "TE", "trailers")
			if r.code != tt.status {
				t.Fatalf("%d %.200s, want %d", r.code, r.body, tt.status)
			}
			if got := r.header.Get("Grpc-Metadata-X-Big") != "" || r.trailer.Get("Grpc-Trailer-X-Big") != "" || r.header.Get("Grpc-Trailer-X-Big") != ""; got != tt.header {
				t.Errorf("x-big passed on: %v, want %v", got, tt.header)
			}
			if tt.status == 502 {
				var st spb.Status
				if err := protojson.Unmarshal([]byte(r.body), &st); err != nil || codes.Code(st.Code) != codes.Internal || !strings.Contains(st.Message, "larger than the limit") {
					t.Errorf("body %.200s (%v), want a google.rpc.Status INTERNAL", r.body, err)
				}
			}
			if tt.inBand && !strings.Contains(r.body, `"error":{"code":13`) {
				t.Errorf("stream body %.300s, want the error in-band", r.body)
			}
		})
	}
}
