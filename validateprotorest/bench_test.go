package validateprotorest_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest"
	"github.com/protorest/protorest/validateprotorest"
	rulesv1 "github.com/protorest/protorest/validateprotorest/internal/rulespb/v1"
)

// BenchmarkUnary measures whole requests through the gateway, with
// httptest's recorder as the client, with validation off and on:
// GetBook and UpdateBook (simple rules: string lengths, an int32 range,
// required), Plain (no rules: validation on must cost nothing), and
// Check (a body "*" and the fixture's many rules, CEL included).
// In-process, the generated handler; remote, a gRPC backend on loopback
// (reflection's descriptors: dynamic messages). The validation=off/on
// pairs run interleaved, for benchstat -col /validation.
func BenchmarkUnary(b *testing.B) {
	cases := []struct{ name, method, target, body string }{
		{"GetBook", "GET", "/v1/shelves/fiction/books/dune", ""},
		{"UpdateBook", "PATCH", "/v1/shelves/fiction/books/dune", `{"title":"Dune","author":"Frank Herbert","pageCount":412}`},
		{"Plain", "GET", "/v1/plain/x", ""},
		// body "*": remote, a request with rules is decoded to be checked,
		// where without it the wire plan sends the body's bytes.
		{"Check", "POST", "/v1/checks/abc", `{"targetId":"1","inner":{"s":"x"},"tags":["a","b"],"count":5}`},
	}
	type gateway struct{ name, validation string }
	handlers := map[gateway]http.Handler{}
	for _, v := range []string{"off", "on"} {
		var opts []protorest.Option
		if v == "on" {
			opts = append(opts, protorest.WithValidation(validateprotorest.New()))
		}
		gw := protorest.NewGateway(opts...)
		rulesv1.RegisterRulesServer(gw, new(rules))
		handlers[gateway{"in-process", v}] = gw
		handlers[gateway{"remote", v}] = remoteGateway(b, opts...)
	}
	for _, c := range cases {
		for _, where := range []string{"in-process", "remote"} {
			for _, v := range []string{"off", "on"} {
				h := handlers[gateway{where, v}]
				b.Run(c.name+"/"+where+"/validation="+v, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						req := httptest.NewRequest(c.method, c.target, strings.NewReader(c.body))
						w := httptest.NewRecorder()
						h.ServeHTTP(w, req)
						if w.Code != http.StatusOK {
							b.Fatalf("status %d: %s", w.Code, w.Body)
						}
					}
				})
			}
		}
	}
}

// BenchmarkCheck measures one method's check alone (what WithValidation
// adds to a request): a valid GetBookRequest and UpdateBookRequest, as
// generated messages (in-process) and dynamic ones (remote), and an
// UpdateBookRequest that breaks a rule (the error path: violations named,
// the details built by protovalidate).
func BenchmarkCheck(b *testing.B) {
	v := validateprotorest.New()
	sd := rulesv1.File_validateprotorest_internal_rulespb_v1_rules_proto.Services().ByName("Rules")
	book := &rulesv1.Book{Name: "shelves/fiction/books/dune", Title: "Dune", Author: "Frank Herbert", PageCount: 412}
	cases := []struct {
		name, method string
		msg          proto.Message
		valid        bool
	}{
		{"GetBook", "GetBook", &rulesv1.GetBookRequest{Name: "shelves/fiction/books/dune"}, true},
		{"UpdateBook", "UpdateBook", &rulesv1.UpdateBookRequest{Book: book}, true},
		{"UpdateBook/invalid", "UpdateBook", &rulesv1.UpdateBookRequest{Book: &rulesv1.Book{Name: book.Name}}, false},
	}
	for _, c := range cases {
		check, err := v.ForMethod(sd.Methods().ByName(protoreflect.Name(c.method)))
		if err != nil || check == nil {
			b.Fatal(err)
		}
		dynamic := dynamicpb.NewMessage(c.msg.ProtoReflect().Descriptor())
		wire, _ := proto.Marshal(c.msg)
		if err := proto.Unmarshal(wire, dynamic); err != nil {
			b.Fatal(err)
		}
		for kind, msg := range map[string]proto.Message{"generated": c.msg, "dynamic": dynamic} {
			b.Run(c.name+"/"+kind, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := check(msg); (err == nil) != c.valid {
						b.Fatal(err)
					}
				}
			})
		}
		// What a remote request with rules pays (internal/remote's check):
		// its wire bytes unmarshalled into a dynamic message, then checked.
		b.Run(c.name+"/wire", func(b *testing.B) {
			b.ReportAllocs()
			md := c.msg.ProtoReflect().Descriptor()
			for b.Loop() {
				m := dynamicpb.NewMessage(md)
				if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(wire, m); err != nil {
					b.Fatal(err)
				}
				if err := check(m); (err == nil) != c.valid {
					b.Fatal(err)
				}
			}
		})
	}
}
