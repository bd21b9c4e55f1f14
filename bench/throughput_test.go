package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/bench/internal/floorproxy"
	"github.com/protorest/protorest/bench/internal/vanguardproxy"
	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// TestThroughputEquivalence: every contender of the throughput harness
// answers every route it serves as the others do, and as the gRPC
// backend does: status 200, the same media type, and the same JSON values
// (a server stream's lines one by one), so that none is fast because it
// does less. The remote contenders are the handlers the harness's
// programs serve (cmd/floorproxy, cmd/vanguardproxy, cmd/gatewayproxy),
// here in front of one backend; protorest serve stands as RegisterRemote,
// and the harness itself compares the answers of the live processes,
// protorest serve's included, before it measures.
func TestThroughputEquivalence(t *testing.T) {
	lib := NewLibrary()
	ctx := t.Context()
	peers, err := throughputPeers(ctx, lib)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ClosePeers(peers) })
	direct, err := NewGRPCDirect(lib)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { direct.Close() })

	for _, route := range Routes {
		t.Run(route.Name, func(t *testing.T) {
			want, err := routeReply(ctx, route, direct.Client)
			if err != nil {
				t.Fatal(err)
			}
			var ref *routeAnswer
			for _, p := range peers {
				if _, ok := SkippedRoutes[p.Name()][route.Name]; ok {
					continue
				}
				got, err := askRoute(ctx, p, route)
				if err != nil {
					t.Errorf("%s: %v", p.Name(), err)
					continue
				}
				for i, m := range got.msgs {
					if i >= len(want) || !proto.Equal(m, want[i]) {
						t.Errorf("%s: message %d %v, not the gRPC reply's", p.Name(), i, m)
					}
				}
				if len(got.msgs) != len(want) {
					t.Errorf("%s: %d messages, the gRPC reply %d", p.Name(), len(got.msgs), len(want))
				}
				if ref == nil {
					ref = got
					continue
				}
				if got.mediaType != ref.mediaType {
					t.Errorf("%s: Content-Type %q, %s: %q", p.Name(), got.mediaType, ref.peer, ref.mediaType)
				}
				if !reflect.DeepEqual(got.values, ref.values) {
					t.Errorf("%s: JSON\n%s\n%s:\n%s", p.Name(), got.body, ref.peer, ref.body)
				}
			}
		})
	}
}

// BenchmarkThroughputPeers measures one request of each of the
// harness's routes but the stream through each of its contenders, as
// peers in this process (the remote ones over TCP to a backend here):
// BenchmarkThroughputPeers/<route>/<peer>. An iteration sends the request
// and reads the whole answer; allocations cover the whole process (the
// client, the gateway and the backend), so the difference between two
// peers of one route is what their gateways allocate: exact, where the
// harness's CPU figures are noisy.
func BenchmarkThroughputPeers(b *testing.B) {
	peers, err := throughputPeers(b.Context(), NewLibrary())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ClosePeers(peers) })
	for _, route := range Routes {
		if route.Stream {
			continue
		}
		b.Run(route.Name, func(b *testing.B) {
			for _, p := range peers {
				b.Run(p.Name(), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						res, err := p.Do(b.Context(), route.Op.HTTP)
						if err != nil {
							b.Fatal(err)
						}
						if res.Status != http.StatusOK {
							b.Fatalf("status %d: %.200s", res.Status, res.Body)
						}
					}
				})
			}
		})
	}
}

// throughputPeers are the harness's contenders as peers: the floor proxy,
// grpc-gateway, vanguard and protorest in front of a gRPC backend over
// TCP, and the floor, grpc-gateway and protorest in-process.
func throughputPeers(ctx context.Context, lib libraryv1.LibraryServer) ([]HTTPPeer, error) {
	var peers []HTTPPeer
	add := func(p HTTPPeer, err error) error {
		if err == nil {
			peers = append(peers, p)
		}
		return err
	}
	remote := func(name string, handler func(b *backend) (http.Handler, error)) (HTTPPeer, error) {
		b, err := startBackend(lib, TCP)
		if err != nil {
			return nil, err
		}
		h, err := handler(b)
		if err != nil {
			return nil, errors.Join(err, b.Close())
		}
		return serveRemote(name, h, b.Close)
	}
	err := errors.Join(
		add(remote(FloorProxyName, func(b *backend) (http.Handler, error) { return floorproxy.New(b.Conn), nil })),
		add(NewGRPCGatewayRemote(ctx, lib, TCP)),
		add(remote(VanguardName, func(b *backend) (http.Handler, error) { return vanguardproxy.New(b.Addr) })),
		add(NewProtorestRemote(ctx, lib, TCP)),
		add(NewFloor(lib), nil),
		add(NewGRPCGatewayInProcess(ctx, lib)),
		add(NewProtorestInProcess(lib)),
	)
	if err != nil {
		return nil, errors.Join(err, ClosePeers(peers))
	}
	return peers, nil
}

// routeReply is what the backend answers to route's call: its reply, or
// a stream's messages.
func routeReply(ctx context.Context, route Route, c libraryv1.LibraryClient) ([]proto.Message, error) {
	if !route.Stream {
		m, err := route.Op.GRPC(ctx, c)
		return []proto.Message{m}, err
	}
	stream, err := c.StreamItems(ctx, &libraryv1.ListItemsRequest{N: StreamRouteItems})
	if err != nil {
		return nil, err
	}
	var msgs []proto.Message
	for {
		m, err := stream.Recv()
		if err == io.EOF {
			return msgs, nil
		}
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
}

// A routeAnswer is a peer's answer to a route, parsed: its messages (a
// stream's {"result": …} lines) and their JSON values.
type routeAnswer struct {
	peer      string
	mediaType string
	body      []byte
	msgs      []proto.Message
	values    []any
}

func askRoute(ctx context.Context, p HTTPPeer, route Route) (*routeAnswer, error) {
	res, err := p.Do(ctx, route.Op.HTTP)
	if err != nil {
		return nil, err
	}
	if res.Status != http.StatusOK {
		return nil, errors.New("status " + http.StatusText(res.Status) + ": " + string(res.Body))
	}
	a := &routeAnswer{peer: p.Name(), body: res.Body}
	if a.mediaType, _, err = mime.ParseMediaType(res.ContentType); err != nil {
		return nil, err
	}
	docs := [][]byte{res.Body}
	if route.Stream {
		if !bytes.HasSuffix(res.Body, []byte("\n")) {
			return nil, errors.New("a stream's last line without its newline: " + string(res.Body))
		}
		docs = bytes.SplitAfter(res.Body[:len(res.Body)-1], []byte("\n"))
	}
	for _, doc := range docs {
		v, err := decodeJSON(doc)
		if err != nil {
			return nil, err
		}
		a.values = append(a.values, v)
		var m proto.Message
		if route.Stream {
			var line struct {
				Result json.RawMessage `json:"result"`
			}
			dec := json.NewDecoder(bytes.NewReader(doc))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&line); err != nil {
				return nil, err
			}
			m, doc = &libraryv1.Item{}, line.Result
		} else {
			m = route.Op.NewResponse()
		}
		if err := protojson.Unmarshal(doc, m); err != nil {
			return nil, err
		}
		a.msgs = append(a.msgs, m)
	}
	return a, nil
}
