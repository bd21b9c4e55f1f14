package protorest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest"
)

// compiledProto is a service with no generated code: it is compiled at
// run time, and its google.api.http options are dynamic messages.
const compiledProto = `syntax = "proto3";
package compiled.v1;
import "google/api/annotations.proto";
message Thing { string name = 1; int32 size = 2; }
service Things {
  rpc GetThing(Thing) returns (Thing) {
    option (google.api.http) = {
      get: "/v1/{name=things/*}"
      additional_bindings { post: "/v1/things" body: "*" }
    };
  }
}
`

// TestRegisterServiceCompiledFiles registers a service whose descriptors
// protocompile made (google/api/annotations.proto resolved to the linked
// descriptors, or compiled anew from a descriptor proto, as a descriptor
// set has it), with a dynamic implementation, in a fresh registry: the
// google.api.http option is a *dynamicpb.Message there, which
// RegisterService once asserted to *annotations.HttpRule and panicked on.
func TestRegisterServiceCompiledFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		googleAPIs func(protoreflect.FileDescriptor) protocompile.SearchResult
	}{
		{"linked google/api", func(fd protoreflect.FileDescriptor) protocompile.SearchResult {
			return protocompile.SearchResult{Desc: fd}
		}},
		{"google/api from a descriptor set", func(fd protoreflect.FileDescriptor) protocompile.SearchResult {
			return protocompile.SearchResult{Proto: protodesc.ToFileDescriptorProto(fd)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
				&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{"compiled/v1/compiled.proto": compiledProto})},
				protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
					fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
					if err != nil {
						return protocompile.SearchResult{}, err
					}
					return tc.googleAPIs(fd), nil
				}),
			})}
			compiled, err := c.Compile(t.Context(), "compiled/v1/compiled.proto")
			if err != nil {
				t.Fatal(err)
			}
			fd := compiled[0]
			files := new(protoregistry.Files)
			if err := files.RegisterFile(fd); err != nil {
				t.Fatal(err)
			}
			md := fd.Services().Get(0).Methods().Get(0)
			desc := &grpc.ServiceDesc{ServiceName: "compiled.v1.Things", Methods: []grpc.MethodDesc{{
				MethodName: "GetThing",
				Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
					in := dynamicpb.NewMessage(md.Input())
					if err := dec(in); err != nil {
						return nil, err
					}
					return in, nil
				},
			}}}
			gw := protorest.NewGateway(protorest.WithFiles(files))
			if msg := registerPanic(gw, desc); msg != "" {
				t.Fatalf("RegisterService panicked: %s", msg)
			}
			srv := httptest.NewServer(gw)
			t.Cleanup(srv.Close)

			for _, req := range []struct{ method, path, body, want string }{
				{"GET", "/v1/things/a%20b?size=3", "", `{"name":"things/a b","size":3}`},
				{"POST", "/v1/things", `{"name":"n","size":4}`, `{"name":"n","size":4}`},
			} {
				r, err := http.NewRequestWithContext(t.Context(), req.method, srv.URL+req.path, strings.NewReader(req.body))
				if err != nil {
					t.Fatal(err)
				}
				res, err := srv.Client().Do(r)
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				if res.StatusCode != http.StatusOK || string(body) != req.want {
					t.Errorf("%s %s: %d %s, want 200 %s", req.method, req.path, res.StatusCode, body, req.want)
				}
			}
		})
	}
}
