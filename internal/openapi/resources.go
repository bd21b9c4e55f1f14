package openapi

import (
	"cmp"
	"strings"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protorest/protorest/internal/descopt"
	"github.com/protorest/protorest/internal/httprule"
)

// resources finds the google.api.resource patterns that name the
// wildcards of a path variable ("shelves/{shelf}/books/{book}" names
// those of {name=shelves/*/books/*} shelf and book). The options are
// read whatever their Go type (see descopt), each message's and field's
// once. A resource type is looked up in the file of the field that
// refers to it and the files that file imports, directly or not. Not
// safe for concurrent use.
type resources struct {
	byType   map[string][]string // a resource type's patterns
	indexed  map[string]bool     // the files whose resources byType holds, by path
	messages map[protoreflect.FullName]*annotations.ResourceDescriptor
}

// resourceTypes resolves the extensions resources reads.
var resourceTypes = descopt.Types(annotations.E_Resource, annotations.E_ResourceReference, annotations.E_ResourceDefinition)

// names returns the names of the wildcards of segs, the segments of a
// variable that sets field fd, from the first pattern that has segs'
// shape: the pattern of the resource fd refers to
// (google.api.resource_reference: its type, or the parent of its
// child_type), else of the resource whose name field fd is. It returns
// nil when no pattern fits.
func (rs *resources) names(fd protoreflect.FieldDescriptor, segs []httprule.Segment) []string {
	if ref := rs.reference(fd); ref != nil {
		if t := ref.GetType(); t != "" {
			if names := match(rs.patterns(fd.ParentFile(), t), segs, 0); names != nil {
				return names
			}
		}
		if t := ref.GetChildType(); t != "" {
			if names := match(rs.patterns(fd.ParentFile(), t), segs, 2); names != nil {
				return names
			}
		}
	}
	if md, ok := fd.Parent().(protoreflect.MessageDescriptor); ok {
		if res := rs.resource(md); res != nil && string(fd.Name()) == cmp.Or(res.GetNameField(), "name") {
			return match(res.GetPattern(), segs, 0)
		}
	}
	return nil
}

// match returns the variable names of the first of patterns that has the
// shape of segs once its last trim segments are dropped (a child's
// pattern less its collection and ID is its parent's), or nil.
func match(patterns []string, segs []httprule.Segment, trim int) []string {
	for _, pattern := range patterns {
		parts := strings.Split(pattern, "/")
		if len(parts)-trim != len(segs) {
			continue
		}
		if names, ok := fit(parts, segs); ok {
			return names
		}
	}
	return nil
}

// fit returns the variable names of a pattern's parts when they have the
// shape of segs: the same literals where segs has literals, and a
// variable, {x}, for each "*" ({x=**} for "**").
func fit(parts []string, segs []httprule.Segment) ([]string, bool) {
	var names []string
	for i, s := range segs {
		if s.Kind == httprule.Literal {
			if parts[i] != s.Value {
				return nil, false
			}
			continue
		}
		name, ok := patternVariable(parts[i], s.Kind == httprule.DeepWildcard)
		if !ok {
			return nil, false
		}
		names = append(names, name)
	}
	return names, true
}

// patternVariable returns the name of a pattern segment that is one
// variable: x for {x}, or with deep for {x=**}.
func patternVariable(part string, deep bool) (string, bool) {
	inner, ok := strings.CutPrefix(part, "{")
	if inner, ok = strings.CutSuffix(inner, "}"); !ok {
		return "", false
	}
	if deep {
		inner, ok = strings.CutSuffix(inner, "=**")
	}
	if !ok || inner == "" || strings.ContainsAny(inner, "{}=*") {
		return "", false
	}
	return inner, true
}

// reference returns the google.api.resource_reference of fd, or nil.
func (rs *resources) reference(fd protoreflect.FieldDescriptor) *annotations.ResourceReference {
	v, _ := descopt.Extension[descriptorpb.FieldOptions](fd.Options(), resourceTypes, annotations.E_ResourceReference)
	ref, _ := v.(*annotations.ResourceReference)
	return ref
}

// resource returns the google.api.resource of md, or nil.
func (rs *resources) resource(md protoreflect.MessageDescriptor) *annotations.ResourceDescriptor {
	if res, ok := rs.messages[md.FullName()]; ok {
		return res
	}
	v, _ := descopt.Extension[descriptorpb.MessageOptions](md.Options(), resourceTypes, annotations.E_Resource)
	res, _ := v.(*annotations.ResourceDescriptor)
	if rs.messages == nil {
		rs.messages = map[protoreflect.FullName]*annotations.ResourceDescriptor{}
	}
	rs.messages[md.FullName()] = res
	return res
}

// patterns returns the patterns of resource type t, as the file from
// and what it imports define it: a message's google.api.resource or a
// file's google.api.resource_definition.
func (rs *resources) patterns(from protoreflect.FileDescriptor, t string) []string {
	rs.index(from)
	return rs.byType[t]
}

// index adds the resources of file f and the files it imports, but those
// indexed already, to byType; the first definition of a type wins.
func (rs *resources) index(f protoreflect.FileDescriptor) {
	if rs.indexed[f.Path()] {
		return
	}
	if rs.indexed == nil {
		rs.indexed, rs.byType = map[string]bool{}, map[string][]string{}
	}
	rs.indexed[f.Path()] = true
	add := func(res *annotations.ResourceDescriptor) {
		if _, ok := rs.byType[res.GetType()]; !ok && res.GetType() != "" {
			rs.byType[res.GetType()] = res.GetPattern()
		}
	}
	v, _ := descopt.Extension[descriptorpb.FileOptions](f.Options(), resourceTypes, annotations.E_ResourceDefinition)
	defs, _ := v.([]*annotations.ResourceDescriptor)
	for _, res := range defs {
		add(res)
	}
	var walk func(protoreflect.MessageDescriptors)
	walk = func(msgs protoreflect.MessageDescriptors) {
		for i := range msgs.Len() {
			md := msgs.Get(i)
			if res := rs.resource(md); res != nil {
				add(res)
			}
			walk(md.Messages())
		}
	}
	walk(f.Messages())
	imports := f.Imports()
	for i := range imports.Len() {
		rs.index(imports.Get(i).FileDescriptor)
	}
}
