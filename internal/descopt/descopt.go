// Package descopt reads extensions of descriptor options (google.api.http,
// google.api.resource…) whatever Go type the options have: the generated
// descriptorpb type with the extension resolved when the files come from
// generated code, a dynamic message when protocompile compiled them or a
// descriptor set brought its own google/api files, and unknown bytes when
// nothing resolved the extension. Each is read through its wire bytes.
package descopt

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Extension returns the value of extension xt in opts, a descriptor's
// options of generated type *O (descriptorpb.MethodOptions…), or nil
// when it has none. Unless they are an *O without it, the options are
// read again into a new *O, with types resolving extensions; types must
// hold xt. The error is that of options that do not parse.
func Extension[O any, PO interface {
	*O
	proto.Message
}](opts proto.Message, types *protoregistry.Types, xt protoreflect.ExtensionType) (any, error) {
	if opts == nil || !opts.ProtoReflect().IsValid() {
		return nil, nil
	}
	// The usual case: options of the generated type, without it. (A
	// dynamic message may hold it as an extension of another type, which
	// HasExtension does not see.)
	if _, ok := opts.(PO); ok && !proto.HasExtension(opts, xt) && len(opts.ProtoReflect().GetUnknown()) == 0 {
		return nil, nil
	}
	b, err := proto.Marshal(opts)
	if err != nil {
		return nil, fmt.Errorf("%s option: %w", xt.TypeDescriptor().FullName(), err)
	}
	into := PO(new(O))
	if err := (proto.UnmarshalOptions{Resolver: types}).Unmarshal(b, into); err != nil {
		return nil, fmt.Errorf("%s option: %w", xt.TypeDescriptor().FullName(), err)
	}
	if !proto.HasExtension(into, xt) {
		return nil, nil
	}
	return proto.GetExtension(into, xt), nil
}

// Types returns a resolver of exactly the extensions xts.
func Types(xts ...protoreflect.ExtensionType) *protoregistry.Types {
	t := new(protoregistry.Types)
	for _, xt := range xts {
		if err := t.RegisterExtension(xt); err != nil {
			panic(err)
		}
	}
	return t
}
