// Package resolve finds message and extension types for a gateway: its
// own (protorest.WithTypes), then those of every remote backend, so that
// google.protobuf.Any values (error details included) of backend types
// render as JSON.
package resolve

import (
	"sync/atomic"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Types finds types in the gateway's types, then in the backends'. The
// backends' types are swapped whole on every load (SetRemote).
type Types struct {
	base   Finder
	remote atomic.Pointer[[]*dynamicpb.Types]
}

// New returns Types that look in base first.
func New(base Finder) *Types { return &Types{base: base} }

// A Finder finds message and extension types (*protoregistry.Types).
type Finder interface {
	protoregistry.MessageTypeResolver
	protoregistry.ExtensionTypeResolver
}

// SetRemote makes types the backends' types.
func (r *Types) SetRemote(types []*dynamicpb.Types) { r.remote.Store(&types) }

// lookup returns the first type find finds, in the gateway's types, then
// the backends'.
func lookup[T any](r *Types, find func(Finder) (T, error)) (T, error) {
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

func (r *Types) FindMessageByName(name protoreflect.FullName) (protoreflect.MessageType, error) {
	return lookup(r, func(f Finder) (protoreflect.MessageType, error) { return f.FindMessageByName(name) })
}

func (r *Types) FindMessageByURL(url string) (protoreflect.MessageType, error) {
	return lookup(r, func(f Finder) (protoreflect.MessageType, error) { return f.FindMessageByURL(url) })
}

func (r *Types) FindExtensionByName(name protoreflect.FullName) (protoreflect.ExtensionType, error) {
	return lookup(r, func(f Finder) (protoreflect.ExtensionType, error) { return f.FindExtensionByName(name) })
}

func (r *Types) FindExtensionByNumber(message protoreflect.FullName, field protoreflect.FieldNumber) (protoreflect.ExtensionType, error) {
	return lookup(r, func(f Finder) (protoreflect.ExtensionType, error) { return f.FindExtensionByNumber(message, field) })
}
