package bench

import (
	"net/http/httptest"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"
)

// TestMarshalerDefaultsAgree pins grpc-gateway's default JSON options,
// which the peers rely on: runtime.NewServeMux marshals with protojson,
// EmitUnpopulated and lowerCamelCase names, and reads with DiscardUnknown.
// protorest documents the same defaults (WithMarshalOptions,
// WithUnmarshalOptions); TestEquivalence checks that the two write the
// same JSON.
func TestMarshalerDefaultsAgree(t *testing.T) {
	in, out := runtime.MarshalerForRequest(runtime.NewServeMux(), httptest.NewRequest("GET", "/", nil))
	for _, m := range []runtime.Marshaler{in, out} {
		body, ok := m.(*runtime.HTTPBodyMarshaler)
		if !ok {
			t.Fatalf("default marshaler is %T, want *runtime.HTTPBodyMarshaler", m)
		}
		pb, ok := body.Marshaler.(*runtime.JSONPb)
		if !ok {
			t.Fatalf("default marshaler wraps %T, want *runtime.JSONPb", body.Marshaler)
		}
		if pb.MarshalOptions != (protojson.MarshalOptions{EmitUnpopulated: true}) {
			t.Errorf("grpc-gateway marshals with %+v, want EmitUnpopulated only", pb.MarshalOptions)
		}
		if pb.UnmarshalOptions != (protojson.UnmarshalOptions{DiscardUnknown: true}) {
			t.Errorf("grpc-gateway unmarshals with %+v, want DiscardUnknown only", pb.UnmarshalOptions)
		}
	}
}
