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

// StreamedItems is how many items the server stream of
// BenchmarkProtocolPeers answers.
const StreamedItems = 500

// BenchmarkProtocolPeers compares protorest with vanguard-go translating
// Connect (JSON and proto) and gRPC-Web to the same in-process Library
// (vanguardgrpc.NewTranscoder in front of a grpc.Server, as vanguard's
// README serves one), through each handler with no network to the
// client: one unary GetBook (call=unary), and StreamItems answering
// StreamedItems items, made once (PreparedLibrary, call=stream500) as
// GetBook's books are, or made by each call (Library, call=stream500-built:
// the service's own 9 allocations an item, the same on both sides).
// Before it is timed, each peer's answer is decoded as its protocol's
// client would and compared with what the Library answers
// (checkProtocolAnswer), so that both do the same work.
func BenchmarkProtocolPeers(b *testing.B) {
	prepared, built := NewPreparedLibrary(), NewLibrary()
	peers := map[bool][]protocolPeer{false: protocolPeers(b, prepared), true: protocolPeers(b, built)}
	book, err := prepared.GetBook(b.Context(), &libraryv1.GetBookRequest{Name: Shelf + "/books/007"})
	if err != nil {
		b.Fatal(err)
	}
	items := make([]proto.Message, StreamedItems)
	for i, it := range Items(StreamedItems) {
		items[i] = it
	}
	for _, call := range protocolPeerCalls(b) {
		for _, peer := range peers[call.built] {
			want := []proto.Message{book}
			if call.stream {
				want = items
			}
			name := "call=" + call.kind + "/protocol=" + call.protocol + "/peer=" + peer.name
			b.Run(name, func(b *testing.B) {
				serve := func() *httptest.ResponseRecorder {
					req := httptest.NewRequest(http.MethodPost, call.path, bytes.NewReader(call.body))
					req.ProtoMajor, req.ProtoMinor, req.Proto = 2, 0, "HTTP/2.0"
					for i := 0; i+1 < len(call.headers); i += 2 {
						req.Header.Set(call.headers[i], call.headers[i+1])
					}
					w := httptest.NewRecorder()
					peer.h.ServeHTTP(w, req)
					return w
				}
				first := serve()
				checkProtocolAnswer(b, call.protocol, call.stream, first, want)
				size := first.Body.Len()
				b.ReportAllocs()
				for b.Loop() {
					w := serve()
					if w.Code != http.StatusOK || w.Body.Len() != size {
						b.Fatalf("%d, %d bytes (%d before): %.200q", w.Code, w.Body.Len(), size, w.Body)
					}
				}
			})
		}
	}
}

// A protocolPeer is a handler BenchmarkProtocolPeers calls.
type protocolPeer struct {
	name string
	h    http.Handler
}

// protocolPeers returns protorest with svc registered on it, and vanguard
// in front of a grpc.Server serving svc.
func protocolPeers(b *testing.B, svc libraryv1.LibraryServer) []protocolPeer {
	gw := protorest.NewGateway()
	libraryv1.RegisterLibraryServer(gw, svc)
	srv := grpc.NewServer()
	libraryv1.RegisterLibraryServer(srv, svc)
	vg, err := vanguardgrpc.NewTranscoder(srv)
	if err != nil {
		b.Fatal(err)
	}
	return []protocolPeer{{ProtorestInProcessName, gw}, {VanguardName + "-in-process", vg}}
}

// A protocolPeerCall is one call of BenchmarkProtocolPeers: the request
// a client of the protocol sends.
type protocolPeerCall struct {
	kind, protocol string // "unary", "stream500" or "stream500-built"; "connect-json", "connect-proto" or "grpc-web"
	stream         bool
	built          bool // served by the Library, whose StreamItems makes its items, not the PreparedLibrary
	path           string
	body           []byte
	headers        []string // name, value, …
}

// protocolPeerCalls returns the unary GetBook and the StreamItems of
// StreamedItems in each protocol.
func protocolPeerCalls(b *testing.B) []protocolPeerCall {
	get := &libraryv1.GetBookRequest{Name: Shelf + "/books/007"}
	list := &libraryv1.ListItemsRequest{N: StreamedItems}
	getProto, err := proto.Marshal(get)
	if err != nil {
		b.Fatal(err)
	}
	listProto, err := proto.Marshal(list)
	if err != nil {
		b.Fatal(err)
	}
	const (
		getBook     = "/bench.library.v1.Library/GetBook"
		streamItems = "/bench.library.v1.Library/StreamItems"
	)
	connect := []string{"Connect-Protocol-Version", "1"}
	web := []string{"Content-Type", "application/grpc-web+proto", "X-Grpc-Web", "1"}
	calls := []protocolPeerCall{
		{"unary", "connect-json", false, false, getBook, []byte(`{"name":"` + Shelf + `/books/007"}`), append([]string{"Content-Type", "application/json"}, connect...)},
		{"unary", "connect-proto", false, false, getBook, getProto, append([]string{"Content-Type", "application/proto"}, connect...)},
		{"unary", "grpc-web", false, false, getBook, envelope(0, getProto), web},
	}
	for _, built := range []bool{false, true} {
		kind := "stream500"
		if built {
			kind += "-built"
		}
		calls = append(calls,
			protocolPeerCall{kind, "connect-json", true, built, streamItems, envelope(0, []byte(`{"n":500}`)), append([]string{"Content-Type", "application/connect+json"}, connect...)},
			protocolPeerCall{kind, "connect-proto", true, built, streamItems, envelope(0, listProto), append([]string{"Content-Type", "application/connect+proto"}, connect...)},
			protocolPeerCall{kind, "grpc-web", true, built, streamItems, envelope(0, listProto), web},
		)
	}
	return calls
}

// envelope returns msg in a 5-byte envelope with flags.
func envelope(flags byte, msg []byte) []byte {
	e := binary.BigEndian.AppendUint32([]byte{flags}, uint32(len(msg)))
	return append(e, msg...)
}
