package protorest

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
)

// deriveMask sets the request's field mask from the keys of the JSON
// body, for a PATCH whose client sent no mask.
func (q *request) deriveMask(pm protoreflect.Message) error {
	paths, err := q.b.maskDeriver.Derive(q.body)
	if err != nil {
		return bodyError(err)
	}
	mask := &fieldmaskpb.FieldMask{Paths: paths}
	mv := pm.NewField(q.b.mask).Message()
	proto.Merge(mv.Interface(), mask)
	pm.Set(q.b.mask, protoreflect.ValueOfMessage(mv))
	return nil
}
