package protorest

import (
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/protorest/protorest/internal/bind"
)

// fieldMaskPaths is the number of google.protobuf.FieldMask's paths.
const fieldMaskPaths = 1

// deriveMask sets the request's field mask from the keys of the JSON
// body, for a PATCH whose client sent no mask (or an empty one), as
// grpc-gateway does. A key that names no field is a 400 here, as in
// grpc-gateway: skipping it would turn a typo into a wider update. Binary
// bodies get no derived mask: their keys are not visible.
func (q *request) deriveMask(pm protoreflect.Message) error {
	paths, err := q.b.maskDeriver.Derive(q.body)
	var uk *bind.UnknownKeyError
	if errors.As(err, &uk) {
		return status.Errorf(codes.InvalidArgument, "invalid request body: %v (the update mask is derived from the body's keys)", err)
	}
	if err != nil {
		return bodyError(err)
	}
	mv := pm.NewField(q.b.mask).Message()
	if fm, ok := mv.Interface().(*fieldmaskpb.FieldMask); ok {
		fm.Paths = paths // without protoreflect's conversion of each path
	} else {
		// A remote method's mask is a dynamic message.
		list := mv.Mutable(mv.Descriptor().Fields().ByNumber(fieldMaskPaths)).List()
		for _, p := range paths {
			list.Append(protoreflect.ValueOfString(p))
		}
	}
	pm.Set(q.b.mask, protoreflect.ValueOfMessage(mv))
	return nil
}

// maskIsEmpty reports whether the FieldMask field fd of m is unset or has
// no paths.
func maskIsEmpty(m protoreflect.Message, fd protoreflect.FieldDescriptor) bool {
	if !m.Has(fd) {
		return true
	}
	mask := m.Get(fd).Message()
	paths := mask.Descriptor().Fields().ByNumber(fieldMaskPaths)
	return paths == nil || mask.Get(paths).List().Len() == 0
}
