package protorest

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/remote"
)

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// passThroughProtos are the backend's services for the pass-through tests:
// proto3 (UTF-8 checks, presence-free fields, oneofs) and proto2 (required
// fields).
var passThroughProtos = map[string]string{
	"pt3.proto": `
syntax = "proto3";
package pt.v1;
import "google/api/annotations.proto";
message Inner { string s = 1; int32 n = 2; }
message Item {
  string name = 1;
  int64 id = 2;
  Inner inner = 3;
  repeated string tags = 4;
  optional int32 opt = 5;
  map<string, int64> counts = 6;
  oneof o { string a = 7; Inner b = 8; }
  Item child = 9;
  bytes blob = 10;
  repeated int32 nums = 11;
}
service Items {
  rpc Create(Item) returns (Item) { option (google.api.http) = {post: "/v1/items" body: "*"}; }
  rpc Put(Item) returns (Item) { option (google.api.http) = {put: "/v1/items/{id}/{name}" body: "*"}; }
  rpc Nested(Item) returns (Item) { option (google.api.http) = {post: "/v1/nested/{inner.s}/{inner.n}/{opt}" body: "*"}; }
  rpc Choice(Item) returns (Item) { option (google.api.http) = {post: "/v1/choice/{a}" body: "*"}; }
  rpc Field(Item) returns (Item) { option (google.api.http) = {post: "/v1/field" body: "inner"}; }
  rpc Get(Item) returns (Item) { option (google.api.http) = {get: "/v1/items/{id}/{name}"}; }
  rpc GetNested(Item) returns (Item) { option (google.api.http) = {get: "/v1/nested/{inner.s}/{inner.n}/{opt}"}; }
  rpc List(Item) returns (Item) { option (google.api.http) = {get: "/v1/items"}; }
  rpc FieldVars(Item) returns (Item) { option (google.api.http) = {post: "/v1/field/{inner.s}/{name}" body: "inner"}; }
  rpc Deeper(Item) returns (Item) { option (google.api.http) = {post: "/v1/deeper/{child.name}" body: "child.inner"}; }
  rpc Patch(Item) returns (Item) { option (google.api.http) = {patch: "/v1/patch" body: "child"}; }
}
`,
	"pt2.proto": `
syntax = "proto2";
package pt.v2;
import "google/api/annotations.proto";
message Req { required int32 id = 1; optional string name = 2; }
message Outer { optional Req req = 1; optional string s = 2; optional int32 k = 3; }
service Reqs {
  rpc Check(Req) returns (Outer) { option (google.api.http) = {post: "/v2/req" body: "*"}; }
  rpc Deep(Outer) returns (Outer) { option (google.api.http) = {post: "/v2/outer/{req.id}" body: "*"}; }
  rpc Name(Outer) returns (Outer) { option (google.api.http) = {post: "/v2/name/{req.name}" body: "*"}; }
  rpc Lookup(Req) returns (Outer) { option (google.api.http) = {get: "/v2/req/{id}"}; }
  rpc Find(Outer) returns (Outer) { option (google.api.http) = {get: "/v2/name/{req.name}"}; }
  rpc Wrap(Outer) returns (Outer) { option (google.api.http) = {post: "/v2/wrap/{k}" body: "req"}; }
}
`,
}

// rawBackend is a gRPC server for any service: it records the bytes of
// every request and answers with an empty message.
type rawBackend struct {
	addr string

	mu      sync.Mutex
	calls   []rawCall
	discard bool // record nothing (for benchmarks)
}

type rawCall struct {
	method string
	body   []byte
}

func startRawBackend(t testing.TB) *rawBackend {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	be := &rawBackend{addr: lis.Addr().String()}
	srv := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		// Read into an Empty: every field is an unknown field, kept
		// verbatim, so its unknown bytes are the request's bytes.
		in := new(emptypb.Empty)
		if err := stream.RecvMsg(in); err != nil {
			return err
		}
		method, _ := grpc.MethodFromServerStream(stream)
		be.mu.Lock()
		if !be.discard {
			be.calls = append(be.calls, rawCall{method, bytes.Clone(in.ProtoReflect().GetUnknown())})
		}
		be.mu.Unlock()
		return stream.SendMsg(new(emptypb.Empty))
	}))
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return be
}

func (be *rawBackend) count() int {
	be.mu.Lock()
	defer be.mu.Unlock()
	return len(be.calls)
}

func (be *rawBackend) last() rawCall {
	be.mu.Lock()
	defer be.mu.Unlock()
	return be.calls[len(be.calls)-1]
}

// passThroughGateways returns two gateways in front of one raw backend: the
// one under test, and one with every wire plan removed, which decodes every
// request as the gateway did before pass-through.
func passThroughGateways(t testing.TB) (on, off *Gateway, be *rawBackend) {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for name, src := range passThroughProtos {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	be = startRawBackend(t)
	conn, err := grpc.NewClient(be.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	gws := make([]*Gateway, 2)
	for i := range gws {
		gws[i] = NewGateway(WithIgnoredQueryParameters("api_key"))
		if err := gws[i].RegisterRemote(ctx, conn, WithProtoFiles([]string{dir}, files)); err != nil {
			t.Fatal(err)
		}
	}
	plans := 0
	for _, rm := range gws[1].gw.Backends() {
		for _, e := range rm.Entries() {
			if inv, ok := e.Value.Binding.Invoker.(*remote.UnaryMethod); ok && inv.Wire != nil {
				plans++
				inv.Wire = nil
			}
		}
	}
	if plans == 0 {
		t.Fatal("no binding has a wire plan")
	}
	return gws[0], gws[1], be
}

// inputType returns the input message type of a method the backend saw.
func inputType(t testing.TB, g *Gateway, fullMethod string) protoreflect.MessageDescriptor {
	t.Helper()
	for _, rm := range g.gw.Backends() {
		for _, e := range rm.Entries() {
			if b := e.Value.Binding; b.FullMethod == fullMethod {
				return b.Request.Input
			}
		}
	}
	t.Fatalf("no method %s", fullMethod)
	return nil
}

type ptResult struct {
	status      int
	contentType string
	body        string
	called      bool
	call        rawCall
}

func ptDo(t testing.TB, g *Gateway, be *rawBackend, method, target, contentType string, body []byte) ptResult {
	t.Helper()
	before := be.count()
	req := httptest.NewRequest(method, target, bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	g.ServeHTTP(w, req)
	r := ptResult{status: w.Code, contentType: w.Header().Get("Content-Type"), body: w.Body.String()}
	if n := be.count(); n > before {
		r.called, r.call = true, be.last()
	}
	return r
}

// Wire-format builders.
func ptVarint(num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
}

func ptBytes(num protowire.Number, parts ...[]byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), bytes.Join(parts, nil))
}

func ptCat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// ptNest wraps inner in n levels of Item.child.
func ptNest(n int, inner []byte) []byte {
	for range n {
		inner = ptBytes(9, inner)
	}
	return inner
}

// TestRemotePassThrough sends binary, JSON and invalid bodies to a gateway
// with pass-through and to one without, and checks that the responses are
// byte-identical and the backend saw the same request (as a message), and
// that the bodies that can go through untouched reached the backend as
// they were sent.
func TestRemotePassThrough(t *testing.T) {
	t.Parallel()
	on, off, be := passThroughGateways(t)

	// A valid Item in an order and form proto.Marshal would not write:
	// fields out of order, repeated, unpacked, with unknown fields and a
	// wrong wire type for a known field (an unknown field too).
	item := ptCat(
		ptVarint(2, 5), ptBytes(1, []byte("first")), ptVarint(999, 1),
		ptBytes(3, ptBytes(1, []byte("in")), ptVarint(2, 0)),
		ptBytes(4, []byte("t1")), ptVarint(11, 1), ptBytes(11, []byte{2, 3}),
		ptBytes(6, ptBytes(1, []byte("k")), ptVarint(2, 9)),
		protowire.AppendFixed32(protowire.AppendTag(nil, 2, protowire.Fixed32Type), 7),
		ptBytes(1, []byte("second")), ptVarint(2, 0),
	)
	const (
		binary = "application/proto"
		asJSON = "application/json"
	)
	tests := []struct {
		name               string
		method, target, ct string
		body               []byte
		wantStatus         int
		untouched          bool     // the backend gets body as it is
		wire               []byte   // the backend gets exactly these bytes (JSON transcoded, not decoded)
		appended           bool     // the backend gets body with the path variables after it
		wantCode           string   // for errors: the Status code's JSON
		wantJSON           []string // in the backend's request, as JSON
		notJSON            []string // not in it
		fullMethod         string
		skipBackendCompare bool
	}{
		{name: "valid", method: "POST", target: "/v1/items", ct: binary, body: item, wantStatus: 200, untouched: true, fullMethod: "/pt.v1.Items/Create"},
		{name: "application/protobuf", method: "POST", target: "/v1/items", ct: "application/protobuf", body: item, wantStatus: 200, untouched: true, fullMethod: "/pt.v1.Items/Create"},
		{name: "application/x-protobuf", method: "POST", target: "/v1/items", ct: "application/x-protobuf; charset=binary", body: item, wantStatus: 200, untouched: true, fullMethod: "/pt.v1.Items/Create"},
		{name: "empty", method: "POST", target: "/v1/items", ct: binary, body: nil, wantStatus: 200, untouched: true, fullMethod: "/pt.v1.Items/Create"},
		{name: "ignored query parameter", method: "POST", target: "/v1/items?api_key=x", ct: binary, body: item, wantStatus: 200, untouched: true, fullMethod: "/pt.v1.Items/Create"},
		{name: "query parameter", method: "POST", target: "/v1/items?tags=x", ct: binary, body: item, wantStatus: 400, wantCode: "3"},
		{name: "bad query parameter name", method: "POST", target: "/v1/items?%zz=x", ct: binary, body: item, wantStatus: 400, wantCode: "3"},
		{name: "invalid UTF-8 in proto2", method: "POST", target: "/v2/req", ct: binary, body: ptCat(ptVarint(1, 1), ptBytes(2, []byte("\xff"))), wantStatus: 200, untouched: true, fullMethod: "/pt.v2.Reqs/Check"},
		{name: "required set", method: "POST", target: "/v2/req", ct: binary, body: ptVarint(1, 0), wantStatus: 200, untouched: true, fullMethod: "/pt.v2.Reqs/Check"},

		{name: "truncated varint", method: "POST", target: "/v1/items", ct: binary, body: []byte{0x10, 0x80}, wantStatus: 400, wantCode: "3"},
		{name: "length past the end", method: "POST", target: "/v1/items", ct: binary, body: []byte{0x0a, 0x05, 'a'}, wantStatus: 400, wantCode: "3"},
		{name: "invalid UTF-8", method: "POST", target: "/v1/items", ct: binary, body: ptBytes(1, []byte("a\xff")), wantStatus: 400, wantCode: "3"},
		{name: "invalid UTF-8 nested", method: "POST", target: "/v1/items", ct: binary, body: ptBytes(3, ptBytes(1, []byte("\xc3"))), wantStatus: 400, wantCode: "3"},
		{name: "missing required", method: "POST", target: "/v2/req", ct: binary, body: ptBytes(2, []byte("n")), wantStatus: 400, wantCode: "3"},
		{name: "missing required nested", method: "POST", target: "/v2/outer/5", ct: binary, body: ptBytes(1), wantStatus: 400, wantCode: "3"},
		{name: "depth bomb", method: "POST", target: "/v1/items", ct: binary, body: ptNest(10000, nil), wantStatus: 400, wantCode: "3"},
		{name: "end group with no start", method: "POST", target: "/v1/items", ct: binary, body: []byte{0x0c}, wantStatus: 400, wantCode: "3"},
		{name: "field number 0", method: "POST", target: "/v1/items", ct: binary, body: []byte{0x00, 0x00}, wantStatus: 400, wantCode: "3"},
		{name: "depth 10000", method: "POST", target: "/v1/items", ct: binary, body: ptNest(9999, nil), wantStatus: 200, untouched: true, fullMethod: "/pt.v1.Items/Create"},

		{name: "path variables override", method: "PUT", target: "/v1/items/7/n1?api_key=k", ct: binary, body: item, wantStatus: 200, appended: true,
			wantJSON: []string{`"name":"n1"`, `"id":"7"`, `"tags":["t1"]`}, fullMethod: "/pt.v1.Items/Put"},
		{name: "nested path variables", method: "POST", target: "/v1/nested/s1/4/0", ct: binary, body: ptCat(ptBytes(3, ptBytes(1, []byte("b")), ptVarint(2, 1)), ptVarint(5, 3)), wantStatus: 200, appended: true,
			wantJSON: []string{`"inner":{"s":"s1","n":4}`, `"opt":0`}, fullMethod: "/pt.v1.Items/Nested"},
		{name: "zero path variable", method: "PUT", target: "/v1/items/0/n1", ct: binary, body: ptCat(ptVarint(2, 5), ptBytes(1, []byte("b"))), wantStatus: 200,
			wantJSON: []string{`"name":"n1"`}, notJSON: []string{`"id"`}, fullMethod: "/pt.v1.Items/Put"},
		{name: "zero nested path variable", method: "POST", target: "/v1/nested/s1/0/2", ct: binary, body: ptCat(ptBytes(3, ptBytes(1, []byte("b")), ptVarint(2, 1)), ptVarint(5, 3)), wantStatus: 200,
			wantJSON: []string{`"inner":{"s":"s1"}`, `"opt":2`}, fullMethod: "/pt.v1.Items/Nested"},
		{name: "bad path variable", method: "PUT", target: "/v1/items/x/n1", ct: binary, body: item, wantStatus: 400, wantCode: "3"},
		{name: "bad body and bad path variable", method: "PUT", target: "/v1/items/x/n1", ct: binary, body: []byte{0x10}, wantStatus: 400, wantCode: "3"},
		{name: "path through a required field", method: "POST", target: "/v2/outer/3", ct: binary, body: ptBytes(2, []byte("s")), wantStatus: 200, appended: true, fullMethod: "/pt.v2.Reqs/Deep"},
		// As before: the decoded request fails in grpc's codec.
		{name: "path leaves a required field unset", method: "POST", target: "/v2/name/x", ct: binary, body: ptBytes(2, []byte("s")), wantStatus: 500, wantCode: "13"},
		{name: "path sets a field of a valid body message", method: "POST", target: "/v2/name/x", ct: binary, body: ptBytes(1, ptVarint(1, 4)), wantStatus: 200, fullMethod: "/pt.v2.Reqs/Name"},
		{name: "oneof path variable", method: "POST", target: "/v1/choice/x", ct: binary, body: ptBytes(8), wantStatus: 400, wantCode: "3"},
		{name: "oneof path variable, no conflict", method: "POST", target: "/v1/choice/x", ct: binary, body: ptBytes(1, []byte("n")), wantStatus: 200, wantJSON: []string{`"a":"x"`}},
		{name: "body field", method: "POST", target: "/v1/field", ct: binary, body: ptBytes(1, []byte("s")), wantStatus: 200, fullMethod: "/pt.v1.Items/Field",
			wire: ptBytes(3, ptBytes(1, []byte("s")))},
		{name: "body field, JSON", method: "POST", target: "/v1/field", ct: asJSON, body: []byte(`{"s":"j","n":-2}`), wantStatus: 200, fullMethod: "/pt.v1.Items/Field",
			wire: ptBytes(3, ptBytes(1, []byte("j")), ptVarint(2, 1<<64-2))},
		{name: "body field, empty", method: "POST", target: "/v1/field", ct: binary, body: nil, wantStatus: 200, fullMethod: "/pt.v1.Items/Field", wire: []byte{}},
		{name: "body field, empty JSON", method: "POST", target: "/v1/field", ct: asJSON, body: []byte(" \n"), wantStatus: 200, fullMethod: "/pt.v1.Items/Field", wire: []byte{}},
		{name: "body field, empty object", method: "POST", target: "/v1/field", ct: asJSON, body: []byte(`{}`), wantStatus: 200, fullMethod: "/pt.v1.Items/Field",
			wire: ptBytes(3), wantJSON: []string{`"inner":{}`}},
		{name: "body field with path variables", method: "POST", target: "/v1/field/p/n1", ct: asJSON, body: []byte(`{"s":"j","n":2}`), wantStatus: 200, fullMethod: "/pt.v1.Items/FieldVars",
			wire:     ptCat(ptBytes(3, ptBytes(1, []byte("j")), ptVarint(2, 2)), ptBytes(3, ptBytes(1, []byte("p"))), ptBytes(1, []byte("n1"))),
			wantJSON: []string{`"inner":{"s":"p","n":2}`, `"name":"n1"`}},
		{name: "body field with path variables, binary", method: "POST", target: "/v1/field/p/n1", ct: binary, body: ptCat(ptBytes(1, []byte("b")), ptVarint(2, 3)), wantStatus: 200,
			fullMethod: "/pt.v1.Items/FieldVars", wantJSON: []string{`"inner":{"s":"p","n":3}`, `"name":"n1"`},
			wire: ptCat(ptBytes(3, ptBytes(1, []byte("b")), ptVarint(2, 3)), ptBytes(3, ptBytes(1, []byte("p"))), ptBytes(1, []byte("n1")))},
		{name: "body field two levels down", method: "POST", target: "/v1/deeper/c", ct: asJSON, body: []byte(`{"s":"j"}`), wantStatus: 200, fullMethod: "/pt.v1.Items/Deeper",
			wire: ptCat(ptBytes(9, ptBytes(3, ptBytes(1, []byte("j")))), ptBytes(9, ptBytes(1, []byte("c")))), wantJSON: []string{`"child":{"name":"c","inner":{"s":"j"}}`}},
		{name: "body field with a query", method: "POST", target: "/v1/field?name=q&api_key=k", ct: asJSON, body: []byte(`{"s":"j"}`), wantStatus: 200, fullMethod: "/pt.v1.Items/Field",
			wantJSON: []string{`"name":"q"`, `"inner":{"s":"j"}`}},
		{name: "body field, bad JSON", method: "POST", target: "/v1/field", ct: asJSON, body: []byte(`{"s":1}`), wantStatus: 400, wantCode: "3"},
		{name: "body field, bad binary", method: "POST", target: "/v1/field", ct: binary, body: ptBytes(1, []byte("\xff")), wantStatus: 400, wantCode: "3"},
		{name: "body field, a PATCH's derived mask", method: "PATCH", target: "/v1/patch", ct: asJSON, body: []byte(`{"name":"x"}`), wantStatus: 200, fullMethod: "/pt.v1.Items/Patch"},
		{name: "body field of a type with a required field", method: "POST", target: "/v2/wrap/4", ct: binary, body: ptVarint(1, 7), wantStatus: 200, fullMethod: "/pt.v2.Reqs/Wrap",
			wire: ptCat(ptBytes(1, ptVarint(1, 7)), ptVarint(3, 4))},
		{name: "body field missing its required field", method: "POST", target: "/v2/wrap/4", ct: binary, body: ptBytes(2, []byte("n")), wantStatus: 400, wantCode: "3"},
		{name: "body field of a type with a required field, JSON", method: "POST", target: "/v2/wrap/4", ct: asJSON, body: []byte(`{"id":7}`), wantStatus: 200, fullMethod: "/pt.v2.Reqs/Wrap"},

		{name: "JSON", method: "POST", target: "/v1/items", ct: asJSON, body: []byte(`{"name":"j","id":"3"}`), wantStatus: 200, fullMethod: "/pt.v1.Items/Create",
			wire: ptCat(ptBytes(1, []byte("j")), ptVarint(2, 3))},
		// Transcoded in the JSON's order, which decoding would not keep.
		{name: "JSON transcoded", method: "POST", target: "/v1/items", ct: asJSON,
			body:       []byte(`{"nums":[1,2],"blob":"AQ==","b":{"s":"x"},"counts":{"k":"9"},"tags":["t"],"opt":0,"inner":{"n":-1},"id":"3","name":"j","unknown":[{}],"a":null}`),
			wantStatus: 200, fullMethod: "/pt.v1.Items/Create",
			wire: ptCat(ptBytes(11, []byte{1, 2}), ptBytes(10, []byte{1}), ptBytes(8, ptBytes(1, []byte("x"))), ptBytes(6, ptBytes(1, []byte("k")), ptVarint(2, 9)),
				ptBytes(4, []byte("t")), ptVarint(5, 0), ptBytes(3, ptVarint(2, 1<<64-1)), ptVarint(2, 3), ptBytes(1, []byte("j")))},
		{name: "JSON with path variables", method: "PUT", target: "/v1/items/7/n1", ct: asJSON, body: []byte(`{"name":"j","id":"3"}`), wantStatus: 200,
			wantJSON: []string{`"name":"n1"`, `"id":"7"`}, fullMethod: "/pt.v1.Items/Put", appended: true},
		{name: "JSON with a zero path variable", method: "PUT", target: "/v1/items/0/n1", ct: asJSON, body: []byte(`{"name":"j","id":"3"}`), wantStatus: 200,
			wantJSON: []string{`"name":"n1"`}, notJSON: []string{`"id"`}, fullMethod: "/pt.v1.Items/Put"},
		{name: "JSON syntax error", method: "POST", target: "/v1/items", ct: asJSON, body: []byte(`{"name":`), wantStatus: 400, wantCode: "3"},
		{name: "JSON duplicate field", method: "POST", target: "/v1/items", ct: asJSON, body: []byte(`{"name":"a","name":"b"}`), wantStatus: 400, wantCode: "3"},
		{name: "JSON two oneof members", method: "POST", target: "/v1/items", ct: asJSON, body: []byte(`{"a":"x","b":{}}`), wantStatus: 400, wantCode: "3"},
		{name: "JSON bad integer", method: "POST", target: "/v1/items", ct: asJSON, body: []byte(`{"id":"x"}`), wantStatus: 400, wantCode: "3"},
		{name: "JSON of a type with a required field", method: "POST", target: "/v2/req", ct: asJSON, body: []byte(`{"name":"n","id":1}`), wantStatus: 200, fullMethod: "/pt.v2.Reqs/Check"},
		{name: "JSON missing a required field", method: "POST", target: "/v2/req", ct: asJSON, body: []byte(`{"name":"n"}`), wantStatus: 400, wantCode: "3"},
		{name: "JSON empty body", method: "POST", target: "/v1/items", ct: asJSON, body: nil, wantStatus: 200, fullMethod: "/pt.v1.Items/Create"},
		// A rule without a body: the path variables alone, on the wire
		// when they can be.
		{name: "GET", method: "GET", target: "/v1/items", wantStatus: 200, fullMethod: "/pt.v1.Items/List", wire: []byte{}},
		{name: "GET path variables", method: "GET", target: "/v1/items/7/n1", wantStatus: 200, fullMethod: "/pt.v1.Items/Get",
			wire: ptCat(ptVarint(2, 7), ptBytes(1, []byte("n1")))},
		{name: "GET path variables, a body ignored", method: "GET", target: "/v1/items/-7/n%2F1", ct: binary, body: item, wantStatus: 200, fullMethod: "/pt.v1.Items/Get",
			wire: ptCat(ptVarint(2, 1<<64-7), ptBytes(1, []byte("n/1")))},
		{name: "GET nested path variables", method: "GET", target: "/v1/nested/s1/4/0", wantStatus: 200, fullMethod: "/pt.v1.Items/GetNested",
			wire: ptCat(ptBytes(3, ptBytes(1, []byte("s1"))), ptBytes(3, ptVarint(2, 4)), ptVarint(5, 0)), wantJSON: []string{`"inner":{"s":"s1","n":4}`, `"opt":0`}},
		{name: "GET zero path variable", method: "GET", target: "/v1/items/0/n1", wantStatus: 200, fullMethod: "/pt.v1.Items/Get",
			wantJSON: []string{`"name":"n1"`}, notJSON: []string{`"id"`}},
		{name: "GET zero nested path variable", method: "GET", target: "/v1/nested/s1/0/2", wantStatus: 200, fullMethod: "/pt.v1.Items/GetNested",
			wantJSON: []string{`"inner":{"s":"s1"}`, `"opt":2`}},
		{name: "GET query parameters", method: "GET", target: "/v1/items/7/n1?tags=a&tags=b&api_key=k&inner.n=-1", wantStatus: 200, fullMethod: "/pt.v1.Items/Get",
			wantJSON: []string{`"name":"n1"`, `"id":"7"`, `"tags":["a","b"]`, `"inner":{"n":-1}`},
			wire:     ptCat(ptVarint(2, 7), ptBytes(1, []byte("n1")), ptBytes(4, []byte("a")), ptBytes(4, []byte("b")), ptBytes(3, ptVarint(2, 1<<64-1)))},
		{name: "GET query parameter, zero", method: "GET", target: "/v1/items/7/n1?inner.n=0", wantStatus: 200, fullMethod: "/pt.v1.Items/Get",
			wantJSON: []string{`"inner":{}`}},
		{name: "GET query parameter, oneof", method: "GET", target: "/v1/items/7/n1?a=x", wantStatus: 200, fullMethod: "/pt.v1.Items/Get",
			wantJSON: []string{`"a":"x"`}},
		{name: "GET query parameter given twice", method: "GET", target: "/v1/items/7/n1?inner.n=1&inner.n=2", wantStatus: 400, wantCode: "3"},
		{name: "GET query parameter into a message with a required field", method: "GET", target: "/v2/req/5?name=x", wantStatus: 200, fullMethod: "/pt.v2.Reqs/Lookup",
			wantJSON: []string{`"name":"x"`}},
		{name: "GET bad path variable", method: "GET", target: "/v1/items/x/n1", wantStatus: 400, wantCode: "3"},
		{name: "GET bad query parameter", method: "GET", target: "/v1/items/7/n1?id=8", wantStatus: 400, wantCode: "3"},
		{name: "GET required field set by the path", method: "GET", target: "/v2/req/5", wantStatus: 200, fullMethod: "/pt.v2.Reqs/Lookup", wire: ptVarint(1, 5)},
		// As before: the decoded request fails in grpc's codec.
		{name: "GET path leaves a required field unset", method: "GET", target: "/v2/name/x", wantStatus: 500, wantCode: "13"},
		// application/octet-stream is no codec's: the body is read as
		// JSON, as before.
		{name: "octet-stream is not a binary codec", method: "POST", target: "/v1/items", ct: "application/octet-stream", body: item, wantStatus: 400, wantCode: "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One backend, so not in parallel: each call is the last one.
			got := ptDo(t, on, be, tt.method, tt.target, tt.ct, tt.body)
			want := ptDo(t, off, be, tt.method, tt.target, tt.ct, tt.body)
			if got.status != want.status || got.contentType != want.contentType || got.body != want.body {
				t.Fatalf("with pass-through: %d %s %s\nwithout: %d %s %s", got.status, got.contentType, got.body, want.status, want.contentType, want.body)
			}
			if got.called != want.called {
				t.Fatalf("backend called: %v with pass-through, %v without", got.called, want.called)
			}
			if tt.wantStatus != 0 && got.status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", got.status, tt.wantStatus, got.body)
			}
			if tt.wantCode != "" {
				var st struct {
					Code    json.Number `json:"code"`
					Message string      `json:"message"`
				}
				if err := json.Unmarshal([]byte(got.body), &st); err != nil || string(st.Code) != tt.wantCode || st.Message == "" {
					t.Errorf("error body %s (%v), want code %s", got.body, err, tt.wantCode)
				}
				if got.called {
					t.Error("the backend was called for an invalid request")
				}
			}
			if !got.called {
				return
			}
			if tt.fullMethod != "" && got.call.method != tt.fullMethod {
				t.Errorf("backend method %s, want %s", got.call.method, tt.fullMethod)
			}
			md := inputType(t, on, got.call.method)
			gotMsg, wantMsg := dynamicpb.NewMessage(md), dynamicpb.NewMessage(md)
			if err := proto.Unmarshal(got.call.body, gotMsg); err != nil {
				t.Fatal(err)
			}
			if err := proto.Unmarshal(want.call.body, wantMsg); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(gotMsg, wantMsg) {
				t.Errorf("backend got %v\nwithout pass-through %v", gotMsg, wantMsg)
			}
			switch {
			case tt.wire != nil:
				if !bytes.Equal(got.call.body, tt.wire) {
					t.Errorf("backend got %x, want %x", got.call.body, tt.wire)
				}
			case tt.untouched:
				if !bytes.Equal(got.call.body, tt.body) {
					t.Errorf("backend got %x, sent %x", got.call.body, tt.body)
				}
			case tt.appended && tt.ct == asJSON:
				if !bytes.HasPrefix(got.call.body, jsonWire(t, on, tt.fullMethod, tt.body)) {
					t.Errorf("backend got %x, want the transcoded body and the path variables", got.call.body)
				}
			case tt.appended:
				if !bytes.HasPrefix(got.call.body, tt.body) || len(got.call.body) == len(tt.body) {
					t.Errorf("backend got %x, want %x and the path variables", got.call.body, tt.body)
				}
			case bytes.Equal(got.call.body, tt.body) && len(tt.body) > 0:
				t.Errorf("backend got the body untouched; the case expects it decoded")
			}
			if tt.wantJSON == nil && tt.notJSON == nil {
				return
			}
			js := jsonOf(t, gotMsg)
			for _, part := range tt.wantJSON {
				if !strings.Contains(js, part) {
					t.Errorf("backend got %s, want %s in it", js, part)
				}
			}
			for _, part := range tt.notJSON {
				if strings.Contains(js, part) {
					t.Errorf("backend got %s, want no %s in it", js, part)
				}
			}
		})
	}
}

// jsonWire is the JSON body's wire form, as the gateway's decoder
// transcodes it for the method's input.
func jsonWire(t testing.TB, g *Gateway, fullMethod string, body []byte) []byte {
	t.Helper()
	wire, ok := g.gw.JSON().AppendProto(nil, inputType(t, g, fullMethod), body)
	if !ok {
		t.Fatalf("%s is not transcoded", body)
	}
	return wire
}

func jsonOf(t testing.TB, m proto.Message) string {
	t.Helper()
	b, err := (&codec.JSON{}).Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// BenchmarkRemoteBinary and BenchmarkRemoteJSON send remote requests
// with a body through the wire path (binary bodies passed through, JSON
// transcoded) and through decoding into a dynamic message, for a small
// and a large body, with and without path variables.
func BenchmarkRemoteBinary(b *testing.B) {
	small := ptCat(ptBytes(1, []byte("name")), ptVarint(2, 42), ptBytes(3, ptBytes(1, []byte("inner")), ptVarint(2, 7)))
	var large []byte
	for i := range 200 {
		large = append(large, ptBytes(4, []byte("tag-"+itoa64(int64(i))))...)
		large = append(large, ptBytes(6, ptBytes(1, []byte("key-"+itoa64(int64(i)))), ptVarint(2, uint64(i)))...)
	}
	benchmarkRemoteBodies(b, "application/proto", "pass-through", small, large, func(body []byte) []byte { return body })
}

func BenchmarkRemoteJSON(b *testing.B) {
	small := []byte(`{"name":"name","id":"42","inner":{"s":"inner","n":7}}`)
	var large strings.Builder
	large.WriteString(`{"tags":[`)
	for i := range 200 {
		if i > 0 {
			large.WriteByte(',')
		}
		large.WriteString(`"tag-` + itoa64(int64(i)) + `"`)
	}
	large.WriteString(`],"counts":{`)
	for i := range 200 {
		if i > 0 {
			large.WriteByte(',')
		}
		large.WriteString(`"key-` + itoa64(int64(i)) + `":"` + itoa64(int64(i)) + `"`)
	}
	large.WriteString(`}}`)
	benchmarkRemoteBodies(b, "application/json", "transcode", small, []byte(large.String()), nil)
}

// BenchmarkRemoteRules sends remote requests of rules whose body is not
// "*" through the wire path and through decoding into a dynamic message:
// a GET whose path variables (and query parameters) are encoded straight
// to wire bytes, and a POST whose JSON body is bound to a message field
// and transcoded inside its record.
func BenchmarkRemoteRules(b *testing.B) {
	on, off, be := passThroughGateways(b)
	cases := []struct {
		name, method, target string
		body                 []byte
		wire                 []byte
	}{
		{"get", "GET", "/v1/nested/shelf-1/42/7", nil,
			ptCat(ptBytes(3, ptBytes(1, []byte("shelf-1"))), ptBytes(3, ptVarint(2, 42)), ptVarint(5, 7))},
		{"get/query", "GET", "/v1/items/7/shelf-1?tags=science&tags=fiction&inner.n=42", nil,
			ptCat(ptVarint(2, 7), ptBytes(1, []byte("shelf-1")), ptBytes(4, []byte("science")), ptBytes(4, []byte("fiction")), ptBytes(3, ptVarint(2, 42)))},
		{"post/body-field", "POST", "/v1/field/shelf-1/book-7", []byte(`{"n":42}`),
			ptCat(ptBytes(3, ptVarint(2, 42)), ptBytes(3, ptBytes(1, []byte("shelf-1"))), ptBytes(1, []byte("book-7")))},
	}
	for _, c := range cases {
		got := ptDo(b, on, be, c.method, c.target, "application/json", c.body)
		if got.status != 200 || !bytes.Equal(got.call.body, c.wire) {
			b.Fatalf("%s: the wire path was not taken: status %d, backend got %x, want %x", c.name, got.status, got.call.body, c.wire)
		}
	}
	be.mu.Lock()
	be.discard = true
	be.mu.Unlock()
	for _, c := range cases {
		for _, g := range []struct {
			name string
			gw   *Gateway
		}{{"wire", on}, {"decode", off}} {
			b.Run(c.name+"/"+g.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					w := httptest.NewRecorder()
					req := httptest.NewRequest(c.method, c.target, bytes.NewReader(c.body))
					req.Header.Set("Content-Type", "application/json")
					g.gw.ServeHTTP(w, req)
					if w.Code != 200 {
						b.Fatalf("%d %s", w.Code, w.Body)
					}
				}
			})
		}
	}
}

// wireOf is what the backend must receive for a body sent on the wire
// path (nil: the body transcoded from JSON); each body is checked before
// it is timed, so that a fallback to decoding cannot pass for the wire
// path.
func benchmarkRemoteBodies(b *testing.B, contentType, wirePath string, small, large []byte, wireOf func([]byte) []byte) {
	on, off, be := passThroughGateways(b)
	for _, body := range [][]byte{small, large} {
		var want []byte
		if wireOf != nil {
			want = wireOf(body)
		} else {
			want = jsonWire(b, on, "/pt.v1.Items/Create", body)
		}
		got := ptDo(b, on, be, "POST", "/v1/items", contentType, body)
		if got.status != 200 || !bytes.Equal(got.call.body, want) {
			b.Fatalf("the %s path was not taken: status %d, backend got %d bytes, want %d", wirePath, got.status, len(got.call.body), len(want))
		}
	}
	be.mu.Lock()
	be.discard = true
	be.mu.Unlock()
	for _, body := range []struct {
		name string
		data []byte
	}{{"small", small}, {"large", large}} {
		for _, g := range []struct {
			name string
			gw   *Gateway
		}{{wirePath, on}, {"decode", off}} {
			for _, target := range []string{"/v1/items", "/v1/items/7/n1"} {
				method, vars := "POST", "no-vars"
				if strings.Count(target, "/") > 2 {
					method, vars = "PUT", "vars"
				}
				b.Run(body.name+"/"+vars+"/"+g.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						req := httptest.NewRequest(method, target, bytes.NewReader(body.data))
						req.Header.Set("Content-Type", contentType)
						w := httptest.NewRecorder()
						g.gw.ServeHTTP(w, req)
						if w.Code != 200 {
							b.Fatalf("%d %s", w.Code, w.Body)
						}
					}
				})
			}
		}
	}
}
