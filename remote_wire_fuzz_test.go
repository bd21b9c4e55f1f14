package protorest

import (
	"net/url"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
)

// FuzzRemoteWire sends any path variables, query and body, binary or
// JSON, to the rules of passThroughProtos with a wire plan (a body "*", a
// body field, none) and to the same rules decoded: the answers must be
// the same bytes, and the backend must get the same message.
func FuzzRemoteWire(f *testing.F) {
	on, off, be := passThroughGateways(f)
	routes := []struct{ method, target string }{
		{"GET", "/v1/items/{}/{}"},
		{"GET", "/v1/nested/{}/{}/{}"},
		{"POST", "/v1/field"},
		{"POST", "/v1/field/{}/{}"},
		{"POST", "/v1/deeper/{}"},
		{"PUT", "/v1/items/{}/{}"},
		{"POST", "/v2/wrap/{}"},
		{"GET", "/v2/req/{}"},
		{"POST", "/v2/outer/{}"},
	}
	for i := range routes {
		f.Add(uint8(i), "7", "n1", "-3", "", []byte(`{"s":"x","n":4,"name":"b","inner":{"s":"y"}}`), true)
		f.Add(uint8(i), "0", "", "2", "tags=a&tags=b&blob=AQ&api_key=k", []byte{0x0a, 0x01, 'b', 0x10, 0x03}, false)
		f.Add(uint8(i), "1", "n", "2", "inner.n=3&child.child.id=-4&nums=0&opt=0&counts=x", []byte(`{}`), true)
	}
	f.Add(uint8(1), "s%2F1", "99999999999", "x", "", []byte(nil), true)
	f.Add(uint8(3), "\xff", "a b", "", "name=x&name=y", []byte(`{"s":null}`), true)
	f.Add(uint8(7), "5", "", "", "name=x", []byte(nil), true)
	f.Add(uint8(0), "5", "n", "", "a=x&id=3", []byte(nil), true)
	f.Fuzz(func(t *testing.T, route uint8, v1, v2, v3, query string, body []byte, asJSON bool) {
		r := routes[int(route)%len(routes)]
		target := r.target
		for _, v := range []string{v1, v2, v3} {
			target = strings.Replace(target, "{}", url.PathEscape(v), 1)
		}
		if strings.Contains(target, "//") || strings.HasSuffix(target, "/") ||
			strings.ContainsFunc(query, func(r rune) bool { return r <= ' ' || r == '#' || r >= 0x7f }) {
			return // an empty segment: no route; not a request target's query
		}
		if query != "" {
			target += "?" + query
		}
		ct := "application/proto"
		if asJSON {
			ct = "application/json"
		}
		got := ptDo(t, on, be, r.method, target, ct, body)
		want := ptDo(t, off, be, r.method, target, ct, body)
		if got.status != want.status || got.contentType != want.contentType || got.body != want.body || got.called != want.called {
			t.Fatalf("%s %s: with the wire plan: %d %s %s (backend called %v)\nwithout: %d %s %s (%v)",
				r.method, target, got.status, got.contentType, got.body, got.called, want.status, want.contentType, want.body, want.called)
		}
		if !got.called {
			return
		}
		md := inputType(t, on, got.call.method)
		gotMsg, wantMsg := dynamicpb.NewMessage(md), dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(got.call.body, gotMsg); err != nil {
			t.Fatalf("%s %s: the backend got %x: %v", r.method, target, got.call.body, err)
		}
		if err := proto.Unmarshal(want.call.body, wantMsg); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(gotMsg, wantMsg) {
			t.Fatalf("%s %s: the backend got %v\nwithout the wire plan %v", r.method, target, gotMsg, wantMsg)
		}
	})
}
