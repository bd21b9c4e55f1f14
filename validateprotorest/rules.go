package validateprotorest

import (
	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// HasRules reports whether md carries protovalidate rules: on itself, on
// a oneof or a field, or on a message one of its fields holds, at any
// depth. Rules are found whether the options hold them as a known
// extension, a dynamic one (descriptors compiled from .proto source) or
// unknown bytes (descriptors decoded without buf.validate's types).
func HasRules(md protoreflect.MessageDescriptor) bool {
	return hasRules(md, map[protoreflect.FullName]bool{})
}

func hasRules(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	if hasRule(md.Options(), validate.E_Message.TypeDescriptor()) {
		return true
	}
	oneofs := md.Oneofs()
	for i := range oneofs.Len() {
		if hasRule(oneofs.Get(i).Options(), validate.E_Oneof.TypeDescriptor()) {
			return true
		}
	}
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if hasRule(fd.Options(), validate.E_Field.TypeDescriptor()) {
			return true
		}
		held := fd.Message()
		if fd.IsMap() {
			held = fd.MapValue().Message()
		}
		if held != nil && hasRules(held, seen) {
			return true
		}
	}
	return false
}

// hasRule reports whether opts set the extension ext: a field of opts of
// its number and full name, or unknown bytes of its number.
func hasRule(opts proto.Message, ext protoreflect.ExtensionTypeDescriptor) bool {
	if opts == nil {
		return false
	}
	m := opts.ProtoReflect()
	if !m.IsValid() {
		return false
	}
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		found = fd.IsExtension() && fd.Number() == ext.Number() && fd.FullName() == ext.FullName()
		return !found
	})
	if found {
		return true
	}
	for b := m.GetUnknown(); len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		if num == ext.Number() {
			return true
		}
		b = b[n:]
		if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
			return false
		}
		b = b[n:]
	}
	return false
}

// messages lists md and every message type it holds, at any depth (in a
// field, a list or a map's values), each once, md first.
func messages(md protoreflect.MessageDescriptor) []protoreflect.MessageDescriptor {
	out := []protoreflect.MessageDescriptor{md}
	seen := map[protoreflect.FullName]bool{md.FullName(): true}
	for i := 0; i < len(out); i++ {
		fields := out[i].Fields()
		for j := range fields.Len() {
			fd := fields.Get(j)
			held := fd.Message()
			if fd.IsMap() {
				held = fd.MapValue().Message()
			}
			if held != nil && !seen[held.FullName()] {
				seen[held.FullName()] = true
				out = append(out, held)
			}
		}
	}
	return out
}
