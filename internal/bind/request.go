package bind

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/httprule"
	"github.com/protorest/protorest/internal/route"
	"github.com/protorest/protorest/internal/wellknown"
)

// A Request is how one HTTP rule fills its method's request message,
// planned at registration: the body, then the path variables (which win
// over the body), then the query parameters (which may not touch what
// the path or the body bound), and for a PATCH the derived field mask.
type Request struct {
	Input protoreflect.MessageDescriptor
	Vars  []PathVar
	Body  Body
	Query *Query

	// Refusal is the error every request gets, before anything is read,
	// or nil: that of a path variable through a repeated or map field
	// (see ResolveField), the first one.
	Refusal error

	// Check, when not nil, checks every request message Decode fills
	// (Validate); the plan sets it from the gateway's Validator.
	Check func(proto.Message) error

	// Mask is the field the PATCH field-mask derivation sets, or nil;
	// maskDeriver reads the body's keys for it.
	Mask        protoreflect.FieldDescriptor
	maskDeriver *MaskDeriver

	json     *codec.JSON // reads a body field that is not a message
	unescape route.UnescapeMode
}

// A PathVar is a path variable of the template and the field it sets.
type PathVar struct {
	Field *Field
	Name  string // the variable's field path as the template writes it
	Multi bool   // covers several segments, or "**": decoded per the unescape mode
}

// BodyKind is what a rule's body binds.
type BodyKind uint8

const (
	BodyNone  BodyKind = iota // the rule has no body: a request body is ignored
	BodyAll                   // body: "*"
	BodyField                 // body: "field.path"
)

// Body is the plan of a rule's body.
type Body struct {
	Kind BodyKind
	Path []protoreflect.FieldDescriptor // for BodyField
	Raw  *wellknown.HTTPBody            // the target is google.api.HttpBody
}

// RequestOptions are a gateway's binding settings.
type RequestOptions struct {
	Query      QueryOptions
	DeriveMask bool               // derive PATCH field masks from the body's keys
	Unescape   route.UnescapeMode // of multi-segment path variables
	JSON       *codec.JSON        // the built-in JSON codec, for body fields that are not messages
}

// NewRequest plans the binding of a rule of method httpMethod, path
// template tmpl and body (the rule's body: "", "*" or a field path) for
// requests of type input.
func NewRequest(input protoreflect.MessageDescriptor, httpMethod string, tmpl *httprule.Template, body string, opts RequestOptions) (*Request, error) {
	p := &Request{Input: input, json: opts.JSON, unescape: opts.Unescape}
	var bound []*Field
	for _, v := range tmpl.Variables {
		f, err := ResolveField(input, v.FieldPath)
		if err != nil {
			return nil, fmt.Errorf("path variable {%s}: %w", strings.Join(v.FieldPath, "."), err)
		}
		p.Vars = append(p.Vars, PathVar{Field: f, Name: strings.Join(v.FieldPath, "."), Multi: tmpl.MultiSegment(v)})
		bound = append(bound, f)
		if why := f.Refused(); why != "" && p.Refusal == nil {
			p.Refusal = invalidArgument(why)
		}
	}
	switch body {
	case "":
	case "*":
		p.Body = Body{Kind: BodyAll, Raw: wellknown.HTTPBodyOf(input)}
	default:
		fds, err := ResolvePath(input, body)
		if err != nil {
			return nil, fmt.Errorf("body %q: %w", body, err)
		}
		p.Body = Body{Kind: BodyField, Path: fds}
		if last := fds[len(fds)-1]; !last.IsList() && !last.IsMap() {
			p.Body.Raw = wellknown.HTTPBodyOf(last.Message())
		}
		bf, err := BoundField(input, fds)
		if err != nil {
			return nil, fmt.Errorf("body %q: %w", body, err)
		}
		bound = append(bound, bf)
	}
	p.Query = NewQuery(input, bound, p.Body.Kind == BodyAll, opts.Query)
	if opts.DeriveMask && httpMethod == "PATCH" && p.Body.Kind == BodyField {
		if bodyMsg := p.Body.Path[len(p.Body.Path)-1].Message(); bodyMsg != nil && p.Body.Raw == nil {
			p.Mask = soleFieldMask(input)
			p.maskDeriver = NewMaskDeriver(bodyMsg)
			p.maskDeriver.RejectUnknown = true
		}
	}
	return p, nil
}

// ResolvePath resolves a dotted field path for body or response_body:
// every component but the last must be a singular message field; the last
// may be any field. Components are proto names or JSON names.
func ResolvePath(md protoreflect.MessageDescriptor, path string) ([]protoreflect.FieldDescriptor, error) {
	var fds []protoreflect.FieldDescriptor
	cur := md
	for i, name := range strings.Split(path, ".") {
		if cur == nil {
			return nil, fmt.Errorf("%q is not a message field", strings.Join(strings.Split(path, ".")[:i], "."))
		}
		fd := cur.Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			fd = cur.Fields().ByJSONName(name)
		}
		if fd == nil {
			return nil, fmt.Errorf("no field %q in message %s", name, cur.FullName())
		}
		fds = append(fds, fd)
		cur = nil
		if fd.Message() != nil && !fd.IsList() && !fd.IsMap() {
			cur = fd.Message()
		}
	}
	return fds, nil
}

// soleFieldMask returns the only top-level google.protobuf.FieldMask field
// of md, or nil when there is none or more than one.
func soleFieldMask(md protoreflect.MessageDescriptor) protoreflect.FieldDescriptor {
	var found protoreflect.FieldDescriptor
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Message() != nil && fd.Message().FullName() == "google.protobuf.FieldMask" && !fd.IsList() {
			if found != nil {
				return nil
			}
			found = fd
		}
	}
	return found
}
