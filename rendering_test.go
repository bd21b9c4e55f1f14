package protorest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/genproto/googleapis/api/httpbody"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

func TestResponses(t *testing.T) {
	t.Parallel()
	rec := &recorder{reply: func(method string, req proto.Message) (proto.Message, error) {
		switch method {
		case "GetProbe":
			return &confv1.Probe{Name: "abc", Id: 5, Color: confv1.Color_GREEN, LastName: "L"}, nil
		case "Download":
			return &httpbody.HttpBody{ContentType: "text/html", Data: []byte("<h1>Hi</h1>")}, nil
		case "GetPage":
			return &confv1.Page{Page: &httpbody.HttpBody{ContentType: "text/plain", Data: []byte("page")}, Etag: "e"}, nil
		case "DeleteProbe":
			return &emptypb.Empty{}, nil
		case "RawEcho":
			return req, nil
		}
		return nil, status.Error(codes.Unimplemented, method)
	}}
	gw := newFixture(t, "A", rec)
	numbers := newFixture(t, "A", rec, protorest.WithMarshalOptions(protojson.MarshalOptions{UseEnumNumbers: true}))
	omit := newFixture(t, "A", rec, protorest.WithMarshalOptions(protojson.MarshalOptions{UseProtoNames: true}))

	tests := []struct {
		name        string
		gw          http.Handler
		method      string
		target      string
		body        string
		headers     []string
		contentType string
		bodyHas     []string
		bodyNot     []string
		exact       string
	}{
		// PROFILE: unpopulated fields are emitted (grpc-gateway's default).
		{name: "C167", gw: gw, method: "GET", target: "/v1/probes/abc", contentType: "application/json",
			bodyHas: []string{`"name":"abc"`, `"id":"5"`, `"color":"GREEN"`, `"lname":"L"`, `"i32":0`, `"tags":[]`, `"labels":{}`, `"inner":null`}},
		{name: "C169", gw: numbers, method: "GET", target: "/v1/probes/abc", bodyHas: []string{`"color":2`}},
		{name: "proto names, omit defaults", gw: omit, method: "GET", target: "/v1/probes/abc", bodyHas: []string{`"last_name":"L"`}, bodyNot: []string{`"i32"`}},
		{name: "C171", gw: gw, method: "DELETE", target: "/v1/probes/abc", contentType: "application/json", exact: `{}`},
		{name: "C163", gw: gw, method: "GET", target: "/v1/download/d1", contentType: "text/html", exact: `<h1>Hi</h1>`},
		{name: "C164", gw: gw, method: "GET", target: "/v1/pages/p1", contentType: "text/plain", exact: `page`},
		{name: "C161 response", gw: gw, method: "POST", target: "/v1/raw", body: "\x00\xff", headers: []string{"Content-Type", "application/octet-stream"}, contentType: "application/octet-stream", exact: "\x00\xff"},
		{name: "accept proto", gw: gw, method: "GET", target: "/v1/probes/abc", headers: []string{"Accept", "application/x-protobuf"}, contentType: "application/x-protobuf", exact: mustMarshal(&confv1.Probe{Name: "abc", Id: 5, Color: confv1.Color_GREEN, LastName: "L"})},
		{name: "accept q-values", gw: gw, method: "GET", target: "/v1/probes/abc", headers: []string{"Accept", "application/json;q=0.5, application/proto"}, contentType: "application/proto"},
		{name: "accept unsupported gets JSON", gw: gw, method: "GET", target: "/v1/probes/abc", headers: []string{"Accept", "text/html"}, contentType: "application/json"},
		{name: "accept any keeps request type", gw: gw, method: "GET", target: "/v1/probes/abc", headers: []string{"Accept", "*/*", "Content-Type", "application/protobuf"}, contentType: "application/protobuf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := do(t, tt.gw, tt.method, tt.target, tt.body, tt.headers...)
			if resp.code != 200 {
				t.Fatalf("status %d: %s", resp.code, resp.body)
			}
			if tt.contentType != "" && resp.header.Get("Content-Type") != tt.contentType {
				t.Errorf("Content-Type = %q, want %q", resp.header.Get("Content-Type"), tt.contentType)
			}
			if got := resp.header.Get("Content-Length"); got != fmt.Sprint(len(resp.body)) {
				t.Errorf("Content-Length = %q for %d bytes", got, len(resp.body))
			}
			if tt.exact != "" && resp.body != tt.exact {
				t.Errorf("body = %q, want %q", resp.body, tt.exact)
			}
			for _, s := range tt.bodyHas {
				if !strings.Contains(resp.body, s) {
					t.Errorf("body %s lacks %s", resp.body, s)
				}
			}
			for _, s := range tt.bodyNot {
				if strings.Contains(resp.body, s) {
					t.Errorf("body %s has %s", resp.body, s)
				}
			}
		})
	}
}

func TestSuccessStatus(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	gw := newFixture(t, "A", rec,
		protorest.WithSuccessStatus("conf.v1.Probes/CreateProbe", 201),
		protorest.WithSuccessStatus("/conf.v1.Probes/DeleteProbe", 204))
	if resp := do(t, gw, "POST", "/v1/probes", `{}`); resp.code != 201 {
		t.Errorf("create: %d", resp.code)
	}
	if resp := do(t, gw, "DELETE", "/v1/probes/x", ""); resp.code != 204 || resp.body != "" {
		t.Errorf("delete: %d %q", resp.code, resp.body)
	}
	if resp := do(t, gw, "GET", "/v1/probes/x", ""); resp.code != 200 {
		t.Errorf("get: %d", resp.code)
	}
}

// textCodec is a user codec: the protobuf text format.
type textCodec struct{}

func (textCodec) Marshal(m proto.Message) ([]byte, error) { return prototext.Marshal(m) }
func (textCodec) Unmarshal(b []byte, m proto.Message) error {
	return prototext.Unmarshal(b, m)
}

func TestUserCodec(t *testing.T) {
	t.Parallel()
	rec := &recorder{reply: func(_ string, req proto.Message) (proto.Message, error) { return req, nil }}
	gw := newFixture(t, "A", rec, protorest.WithCodec("Text/X-Protobuf", textCodec{}))
	resp := do(t, gw, "POST", "/v1/probes", `name: "t" i32: 3`, "Content-Type", "text/x-protobuf; charset=utf-8")
	if resp.code != 200 || resp.header.Get("Content-Type") != "text/x-protobuf" {
		t.Fatalf("status %d type %q: %s", resp.code, resp.header.Get("Content-Type"), resp.body)
	}
	got := &confv1.Probe{}
	if err := prototext.Unmarshal([]byte(resp.body), got); err != nil || got.GetName() != "t" || got.GetI32() != 3 {
		t.Errorf("response %q: %v", resp.body, err)
	}
	resp = do(t, gw, "POST", "/v1/probes", `{"name":"j"}`, "Accept", "text/x-protobuf")
	if resp.code != 200 || !strings.Contains(resp.body, `name:`) {
		t.Errorf("JSON in, text out: %d %q", resp.code, resp.body)
	}
}

func TestResponseBodyNonMessageFields(t *testing.T) {
	t.Parallel()
	files, desc := ruleFiles(t,
		&annotations.HttpRule{Pattern: &annotations.HttpRule_Get{Get: "/v1/scalar"}, ResponseBody: "name"},
		&annotations.HttpRule{Pattern: &annotations.HttpRule_Get{Get: "/v1/list"}, ResponseBody: "items"},
		&annotations.HttpRule{Pattern: &annotations.HttpRule_Get{Get: "/v1/inner"}, ResponseBody: "inner"},
	)
	d, err := files.FindDescriptorByName("t.v1.Req")
	if err != nil {
		t.Fatal(err)
	}
	md := d.(protoreflect.MessageDescriptor)
	reply := dynamicpb.NewMessage(md)
	if err := prototext.Unmarshal([]byte(`name: "n" items {s: "a"} items {s: "b"}`), reply); err != nil {
		t.Fatal(err)
	}
	for i := range desc.Methods {
		desc.Methods[i].Handler = func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			if err := dec(dynamicpb.NewMessage(md)); err != nil {
				return nil, err
			}
			return reply, nil
		}
	}
	gw := protorest.NewGateway(protorest.WithFiles(files))
	gw.RegisterService(desc, nil)
	for target, want := range map[string]string{
		"/v1/scalar": `"n"`,
		"/v1/list":   `[{"s":"a"},{"s":"b"}]`,
		"/v1/inner":  `{"s":""}`, // unset: the empty message, with defaults
	} {
		if resp := do(t, gw, "GET", target, ""); resp.code != 200 || resp.body != want {
			t.Errorf("%s: %d %s, want %s", target, resp.code, resp.body, want)
		}
	}
}

func TestSuccessStatusMustBe2xx(t *testing.T) {
	t.Parallel()
	// The mistake is the gateway's first use's error, not a panic.
	gw := protorest.NewGateway(protorest.WithSuccessStatus("conf.v1.Probes/GetProbe", 0))
	if err := gw.HandlePath("GET", "/x", func(http.ResponseWriter, *http.Request) {}); err == nil || !strings.Contains(err.Error(), "not a success status") {
		t.Errorf("HandlePath: %v", err)
	}
}

func TestAcceptHeaderLinesCombine(t *testing.T) {
	t.Parallel()
	gw := newFixture(t, "A", &recorder{})
	resp := do(t, gw, "GET", "/v1/probes/abc", "", "Accept", "text/html", "Accept", "application/proto")
	if ct := resp.header.Get("Content-Type"); ct != "application/proto" {
		t.Errorf("Content-Type = %q", ct)
	}
}
