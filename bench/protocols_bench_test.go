package bench

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"testing"

	"connectrpc.com/vanguard/vanguardgrpc"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest"
	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// BenchmarkProtocolPeers compares protorest with vanguard-go translating
// Connect (JSON and proto) and gRPC-Web to the same in-process Library
// (vanguardgrpc.NewTranscoder in front of a grpc.Server, as vanguard's
// README serves one), one unary GetBook through each handler, with no
// network to the client.
func BenchmarkProtocolPeers(b *testing.B) {
	lib := NewLibrary()
	gw := protorest.NewGateway()
	libraryv1.RegisterLibraryServer(gw, lib)
	srv := grpc.NewServer()
	libraryv1.RegisterLibraryServer(srv, lib)
	vg, err := vanguardgrpc.NewTranscoder(srv)
	if err != nil {
		b.Fatal(err)
	}
	msg, err := proto.Marshal(&libraryv1.GetBookRequest{Name: Shelf + "/books/007"})
	if err != nil {
		b.Fatal(err)
	}
	envelope := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
	envelope = append(envelope, msg...)
	const path = "/bench.library.v1.Library/GetBook"
	cases := []struct {
		name    string
		body    []byte
		headers []string
	}{
		{"connect-json", []byte(`{"name":"` + Shelf + `/books/007"}`), []string{"Content-Type", "application/json", "Connect-Protocol-Version", "1"}},
		{"connect-proto", msg, []string{"Content-Type", "application/proto", "Connect-Protocol-Version", "1"}},
		{"grpc-web", envelope, []string{"Content-Type", "application/grpc-web+proto", "X-Grpc-Web", "1"}},
	}
	for _, peer := range []struct {
		name string
		h    http.Handler
	}{{ProtorestInProcessName, gw}, {VanguardName + "-in-process", vg}} {
		for _, c := range cases {
			b.Run(c.name+"/"+peer.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(c.body))
					req.ProtoMajor, req.ProtoMinor, req.Proto = 2, 0, "HTTP/2.0"
					for i := 0; i+1 < len(c.headers); i += 2 {
						req.Header.Set(c.headers[i], c.headers[i+1])
					}
					w := httptest.NewRecorder()
					peer.h.ServeHTTP(w, req)
					if w.Code != http.StatusOK || w.Body.Len() == 0 {
						b.Fatalf("%d %q", w.Code, w.Body)
					}
				}
			})
		}
	}
}
