package openapi

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/bind"
)

// appendPathParameters appends the path parameters of p, whose
// template's variables set the fields of vars (a rule's request plan;
// nil for a custom route). A parameter that is a whole variable has its
// field's schema; one wildcard of a longer variable, a segment, is a
// string, its description giving the field and its whole value. A
// variable through a repeated or map field, which no request gets past,
// is a string too, its description saying why.
func (b *builder) appendPathParameters(params []*Parameter, p *openPath, vars []bind.PathVar) []*Parameter {
	for i, pp := range p.params {
		param := b.parameters.new()
		*param = Parameter{Name: pp.name, In: "path", Required: true, Schema: stringSchema, MultiSegment: pp.multi}
		var desc string // its paragraphs: the field's comment, then notes
		list := false
		if pp.variable >= 0 && vars != nil {
			if why := vars[pp.variable].Field.Refused(); why != "" {
				param.Description = refusedNote(why)
				params = append(params, param)
				continue
			}
		}
		if pp.whole && vars != nil {
			path := vars[pp.variable].Field.Path()
			fd := path[len(path)-1]
			desc = b.comment(fd).text()
			if list = fd.IsList(); !list { // a list is its values, comma-separated: a string
				param.Schema = b.constrainField(b.valueSchema(fd), fd)
			}
		}
		if pp.field != "" && pp.name != pp.field && !pp.segment {
			desc = joinParagraphs(desc, "Sets `"+pp.field+"`.")
		}
		if pp.segment {
			desc = joinParagraphs(desc, "A segment of `"+pp.field+"`, which is `"+p.value(i)+"`.")
		}
		if pp.multi {
			desc = joinParagraphs(desc, "Multi-segment: its `/` are not escaped.")
		}
		if list {
			desc = joinParagraphs(desc, "Comma-separated values.")
		}
		param.Description = desc
		params = append(params, param)
	}
	return params
}

// queryParameters returns the query parameters of a rule: those its
// request plan accepts, named as the gateway's JSON names its fields.
// A repeated field repeats the parameter. The query plan follows from
// the request message and the fields the path and body set, so rules
// alike in those share their parameters.
func (b *builder) queryParameters(req *bind.Request) []*Parameter {
	b.key = appendQueryKey(b.key[:0], req)
	if params, ok := b.queries[string(b.key)]; ok {
		return params
	}
	var params []*Parameter
	for _, qp := range req.Query.Params(b.opts.JSON.UseProtoNames) {
		fd := qp.Path[len(qp.Path)-1]
		param := b.parameters.new()
		*param = Parameter{Name: qp.Name, In: "query", Schema: b.queryValueSchema(fd), Deprecated: isDeprecated(fd)}
		if fd.IsList() {
			param.Style, param.Explode = "form", ptr(true)
		}
		desc := b.comment(fd).text()
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if desc != "" {
				desc += "\n\n"
			}
			desc += "At most one member of the oneof `" + string(od.Name()) + "` may be set."
		}
		param.Description = desc
		params = append(params, param)
	}
	b.queries[string(b.key)] = params
	return params
}

// appendQueryKey appends what decides the query plan of req (see
// bind.NewQuery): its message, the fields its path sets, and its body.
func appendQueryKey(key []byte, req *bind.Request) []byte {
	key = append(key, req.Input.FullName()...)
	for _, v := range req.Vars {
		key = append(key, ' ')
		key = append(key, v.Field.String()...)
	}
	key = append(key, ' ', '0'+byte(req.Body.Kind))
	for _, fd := range req.Body.Path {
		key = append(key, '.')
		key = append(key, fd.Name()...)
	}
	return key
}

// emptyQuerySchema is the schema of a query value of a
// google.protobuf.Empty. It is shared: see builder.
var emptyQuerySchema = &Schema{Type: "string", Enum: []any{"", "{}"}}

// queryValueSchema is the schema of a query value of fd: its JSON value's,
// except for the two well-known types whose JSON value is not a string:
// a google.protobuf.Value is set to the string given, and an Empty takes
// "" or "{}".
func (b *builder) queryValueSchema(fd protoreflect.FieldDescriptor) *Schema {
	if md := fd.Message(); md != nil {
		switch md.FullName() {
		case "google.protobuf.Value":
			return stringSchema
		case "google.protobuf.Empty":
			return emptyQuerySchema
		}
	}
	return b.constrainField(b.valueSchema(fd), fd)
}

// refusedNote is the note of a route whose requests all get 400, and
// why: a path variable through a repeated or map field.
func refusedNote(why string) string {
	return "Every request gets 400 INVALID_ARGUMENT, as from grpc-gateway: " + why + "."
}
