package validateprotorest

import (
	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protopath"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest"
)

// violations is protovalidate's error for a message of type input as the
// gateway's: each violation's field as a path of input's descriptors,
// and buf.validate.Violations as the detail that follows the BadRequest.
func violations(input protoreflect.MessageDescriptor, ve *protovalidate.ValidationError) *protorest.ValidationError {
	out := &protorest.ValidationError{Violations: make([]protorest.Violation, len(ve.Violations))}
	all := &validate.Violations{Violations: make([]*validate.Violation, len(ve.Violations))}
	for i, v := range ve.Violations {
		all.Violations[i] = v.Proto
		path, oneof := fieldPath(input, v.Proto.GetField())
		out.Violations[i] = protorest.Violation{
			Field:   path,
			Oneof:   oneof,
			Rule:    v.Proto.GetRuleId(),
			Message: v.Proto.GetMessage(),
		}
	}
	out.Details = []proto.Message{all}
	return out
}

// fieldPath is fp, from a message of type md, as descriptors: a field
// access for each element, then its subscript (a list index or a map
// key). An element that names a oneof (protovalidate's oneof rules) is
// returned apart; one that names no field of its message (an extension)
// ends the path.
func fieldPath(md protoreflect.MessageDescriptor, fp *validate.FieldPath) (protopath.Path, protoreflect.OneofDescriptor) {
	path := protopath.Path{protopath.Root(md)}
	cur := md
	for _, el := range fp.GetElements() {
		if cur == nil {
			break
		}
		fd := cur.Fields().ByNumber(protoreflect.FieldNumber(el.GetFieldNumber()))
		if fd == nil || fd.Name() != protoreflect.Name(el.GetFieldName()) {
			if od := cur.Oneofs().ByName(protoreflect.Name(el.GetFieldName())); od != nil {
				return path, od
			}
			break
		}
		path = append(path, protopath.FieldAccess(fd))
		switch {
		case el.Subscript == nil:
		case fd.IsList():
			path = append(path, protopath.ListIndex(int(el.GetIndex())))
		case fd.IsMap():
			path = append(path, protopath.MapIndex(mapKey(fd.MapKey(), el)))
		}
		switch {
		case fd.IsMap():
			cur = fd.MapValue().Message()
		default:
			cur = fd.Message()
		}
	}
	return path, nil
}

// mapKey is el's subscript as a key of kind key's.
func mapKey(key protoreflect.FieldDescriptor, el *validate.FieldPathElement) protoreflect.MapKey {
	switch key.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(el.GetBoolKey()).MapKey()
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(el.GetStringKey()).MapKey()
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(el.GetIntKey())).MapKey()
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(el.GetIntKey()).MapKey()
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(el.GetUintKey())).MapKey()
	default:
		return protoreflect.ValueOfUint64(el.GetUintKey()).MapKey()
	}
}
