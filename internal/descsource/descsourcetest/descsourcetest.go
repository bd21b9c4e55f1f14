// Package descsourcetest writes descriptor sets and .proto files for tests
// of the loaders' callers (RegisterRemote, Reload, protorest serve), and
// runs a backend for them.
package descsourcetest

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/emptypb"
)

// WriteSet writes files as a serialized google.protobuf.FileDescriptorSet
// to path, without their imports (the loaders complete the google/ ones).
// It replaces the file atomically, as a deploy would, so that a reload
// running meanwhile reads the old set or the new one.
func WriteSet(t testing.TB, path string, files ...protoreflect.FileDescriptor) {
	t.Helper()
	set := &descriptorpb.FileDescriptorSet{}
	for _, fd := range files {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	b, err := proto.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// GoogleAPIsFile is the name of GoogleAPIsProto under an import path.
const GoogleAPIsFile = "gapis/v1/events.proto"

// GoogleAPIsProto imports googleapis files that protorest's own code does
// not link in, and uses them: options of google/api/client.proto,
// field_behavior.proto, resource.proto and visibility.proto, messages of
// google/rpc/status.proto and google/type/date.proto. Its method is
// GET /v1/{name=events/*}.
const GoogleAPIsProto = `syntax = "proto3";
package gapis.v1;
import "google/api/annotations.proto";
import "google/api/client.proto";
import "google/api/field_behavior.proto";
import "google/api/resource.proto";
import "google/api/visibility.proto";
import "google/rpc/status.proto";
import "google/type/date.proto";
message Event {
  option (google.api.resource) = { type: "example.com/Event" pattern: "events/{event}" };
  string name = 1 [(google.api.field_behavior) = IDENTIFIER];
  google.type.Date day = 2 [(google.api.field_behavior) = REQUIRED];
  google.rpc.Status status = 3;
  string note = 4 [(google.api.field_visibility).restriction = "PREVIEW"];
}
service Events {
  option (google.api.default_host) = "events.example.com";
  rpc GetEvent(Event) returns (Event) {
    option (google.api.http) = { get: "/v1/{name=events/*}" };
    option (google.api.method_signature) = "name";
  }
}
`

// WriteGoogleAPIsProto writes GoogleAPIsProto as GoogleAPIsFile under
// dir, an import path.
func WriteGoogleAPIsProto(t testing.TB, dir string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(GoogleAPIsFile))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(GoogleAPIsProto), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ServeEcho starts a gRPC server on loopback that answers every unary
// call, whatever its service, with the bytes of its request, until the
// test ends, and returns its address.
func ServeEcho(t testing.TB) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		// An Empty keeps every field as an unknown one, and writes them
		// back verbatim.
		in := new(emptypb.Empty)
		if err := stream.RecvMsg(in); err != nil {
			return err
		}
		return stream.SendMsg(in)
	}))
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}
