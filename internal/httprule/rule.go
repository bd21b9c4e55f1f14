package httprule

import (
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protorest/protorest/internal/descopt"
)

// FromMethod returns the google.api.http rule of a method, or nil. The
// method's options hold the rule as an *annotations.HttpRule when they
// come from generated code, but as a dynamic message when the files were
// compiled by protocompile or read from a descriptor set with their own
// google/api/annotations.proto, and as unknown bytes when nothing
// resolved the extension: the rule is read through its wire bytes,
// whatever its Go type (see descopt).
func FromMethod(md protoreflect.MethodDescriptor) (*annotations.HttpRule, error) {
	opts := md.Options()
	if opts == nil {
		return nil, nil
	}
	v, err := descopt.Extension[descriptorpb.MethodOptions](opts, ruleType, annotations.E_Http)
	if v == nil {
		return nil, err
	}
	return v.(*annotations.HttpRule), nil
}

// ruleType resolves the google.api.http extension, and no other, for
// FromMethod.
var ruleType = descopt.Types(annotations.E_Http)

// Pattern returns the HTTP method and path template of a rule.
func Pattern(r *annotations.HttpRule) (method, path string) {
	switch p := r.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		return "GET", p.Get
	case *annotations.HttpRule_Put:
		return "PUT", p.Put
	case *annotations.HttpRule_Post:
		return "POST", p.Post
	case *annotations.HttpRule_Delete:
		return "DELETE", p.Delete
	case *annotations.HttpRule_Patch:
		return "PATCH", p.Patch
	case *annotations.HttpRule_Custom:
		return p.Custom.GetKind(), p.Custom.GetPath()
	}
	return "", ""
}
