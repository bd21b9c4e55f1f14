package protorest

import (
	"sync/atomic"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// resolver finds message and extension types in the gateway's types and
// then in the descriptors of every remote backend, so that
// google.protobuf.Any values (error details included) of backend types
// render as JSON. The backends' types are swapped whole on every load.
type resolver struct {
	base   typeFinder
	remote atomic.Pointer[[]*dynamicpb.Types]
}

type typeFinder interface {
	protoregistry.MessageTypeResolver
	protoregistry.ExtensionTypeResolver
}

func (r *resolver) setRemote(types []*dynamicpb.Types) { r.remote.Store(&types) }

// lookup returns the first type find finds, in the gateway's types, then
// the backends'.
func lookup[T any](r *resolver, find func(typeFinder) (T, error)) (T, error) {
	if v, err := find(r.base); err == nil {
		return v, nil
	}
	if p := r.remote.Load(); p != nil {
		for _, t := range *p {
			if v, err := find(t); err == nil {
				return v, nil
			}
		}
	}
	var zero T
	return zero, protoregistry.NotFound
}

func (r *resolver) FindMessageByName(name protoreflect.FullName) (protoreflect.MessageType, error) {
	return lookup(r, func(f typeFinder) (protoreflect.MessageType, error) { return f.FindMessageByName(name) })
}

func (r *resolver) FindMessageByURL(url string) (protoreflect.MessageType, error) {
	return lookup(r, func(f typeFinder) (protoreflect.MessageType, error) { return f.FindMessageByURL(url) })
}

func (r *resolver) FindExtensionByName(name protoreflect.FullName) (protoreflect.ExtensionType, error) {
	return lookup(r, func(f typeFinder) (protoreflect.ExtensionType, error) { return f.FindExtensionByName(name) })
}

func (r *resolver) FindExtensionByNumber(message protoreflect.FullName, field protoreflect.FieldNumber) (protoreflect.ExtensionType, error) {
	return lookup(r, func(f typeFinder) (protoreflect.ExtensionType, error) { return f.FindExtensionByNumber(message, field) })
}
