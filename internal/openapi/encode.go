package openapi

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// encode.go writes the model as JSON by hand: the bytes encoding/json
// writes for it with SetEscapeHTML(false) (the json tags of model.go say
// what goes out; encode_test.go holds the two to the same bytes), some
// times faster and with a fraction of the garbage, since a build writes
// megabytes. Each model type has its method, its members in the order
// of its struct's fields, a map's keys sorted.

// An encoder appends a document's JSON to b.
type encoder struct {
	b    []byte
	keys []string // the keys of the maps being written, sorted (see encodeMap)
}

// document writes d and a newline, as json.Encoder does.
func (e *encoder) document(d *Document) {
	o := e.object()
	o.string("openapi", d.OpenAPI)
	o.key("info")
	e.info(&d.Info)
	if len(d.Servers) > 0 {
		o.key("servers")
		e.servers(d.Servers)
	}
	if len(d.Tags) > 0 {
		o.key("tags")
		e.tags(d.Tags)
	}
	o.key("paths")
	encodeMap(e, d.Paths, (*encoder).pathItem)
	o.key("components")
	e.components(&d.Components)
	o.end()
	e.b = append(e.b, '\n')
}

func (e *encoder) info(info *Info) {
	o := e.object()
	o.string("title", info.Title)
	o.string("version", info.Version)
	o.omitString("description", info.Description)
	o.end()
}

func (e *encoder) servers(servers []Server) {
	e.b = append(e.b, '[')
	for i := range servers {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		o := e.object()
		o.string("url", servers[i].URL)
		o.end()
	}
	e.b = append(e.b, ']')
}

func (e *encoder) tags(tags []Tag) {
	e.b = append(e.b, '[')
	for i := range tags {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		o := e.object()
		o.string("name", tags[i].Name)
		o.omitString("description", tags[i].Description)
		o.end()
	}
	e.b = append(e.b, ']')
}

func (e *encoder) pathItem(p *PathItem) {
	if p == nil {
		e.b = append(e.b, "null"...)
		return
	}
	o := e.object()
	for _, m := range [...]struct {
		name string
		op   *Operation
	}{
		{"get", p.Get}, {"put", p.Put}, {"post", p.Post}, {"delete", p.Delete},
		{"options", p.Options}, {"head", p.Head}, {"patch", p.Patch}, {"trace", p.Trace},
	} {
		if m.op != nil {
			o.key(m.name)
			e.operation(m.op)
		}
	}
	if len(p.OtherMethods) > 0 {
		o.key("x-protorest-other-methods")
		encodeMap(e, p.OtherMethods, (*encoder).operation)
	}
	o.end()
}

func (e *encoder) operation(op *Operation) {
	if op == nil {
		e.b = append(e.b, "null"...)
		return
	}
	o := e.object()
	if len(op.Tags) > 0 {
		o.key("tags")
		e.b = appendStrings(e.b, op.Tags)
	}
	o.omitString("summary", op.Summary)
	o.omitString("description", op.Description)
	o.string("operationId", op.OperationID)
	if len(op.Parameters) > 0 {
		o.key("parameters")
		e.b = append(e.b, '[')
		for i, p := range op.Parameters {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.parameter(p)
		}
		e.b = append(e.b, ']')
	}
	if op.RequestBody != nil {
		o.key("requestBody")
		e.requestBody(op.RequestBody)
	}
	o.key("responses")
	encodeMap(e, op.Responses, (*encoder).response)
	o.omitBool("deprecated", op.Deprecated)
	o.omitString("x-grpc-method", op.GRPCMethod)
	o.omitString("x-protorest-streaming", op.Streaming)
	o.end()
}

func (e *encoder) parameter(p *Parameter) {
	if p == nil {
		e.b = append(e.b, "null"...)
		return
	}
	o := e.object()
	o.string("name", p.Name)
	o.string("in", p.In)
	o.omitString("description", p.Description)
	o.omitBool("required", p.Required)
	o.omitBool("deprecated", p.Deprecated)
	o.omitString("style", p.Style)
	if p.Explode != nil {
		o.key("explode")
		e.b = strconv.AppendBool(e.b, *p.Explode)
	}
	o.key("schema")
	e.schema(p.Schema)
	o.omitBool("x-multiSegment", p.MultiSegment)
	o.end()
}

func (e *encoder) requestBody(r *RequestBody) {
	o := e.object()
	o.omitString("description", r.Description)
	o.key("content")
	encodeMap(e, r.Content, (*encoder).mediaType)
	o.omitBool("required", r.Required)
	o.end()
}

func (e *encoder) response(r *Response) {
	if r == nil {
		e.b = append(e.b, "null"...)
		return
	}
	o := e.object()
	o.omitString("$ref", r.Ref)
	o.omitString("description", r.Description)
	if len(r.Content) > 0 {
		o.key("content")
		encodeMap(e, r.Content, (*encoder).mediaType)
	}
	o.end()
}

func (e *encoder) mediaType(m *MediaType) {
	if m == nil {
		e.b = append(e.b, "null"...)
		return
	}
	o := e.object()
	if m.Schema != nil {
		o.key("schema")
		e.schema(m.Schema)
	}
	o.end()
}

func (e *encoder) components(c *Components) {
	o := e.object()
	o.key("schemas")
	encodeMap(e, c.Schemas, (*encoder).schema)
	if len(c.Responses) > 0 {
		o.key("responses")
		encodeMap(e, c.Responses, (*encoder).response)
	}
	o.end()
}

func (e *encoder) schema(s *Schema) {
	if s == nil {
		e.b = append(e.b, "null"...)
		return
	}
	o := e.object()
	o.omitString("$ref", s.Ref)
	o.omitString("type", s.Type)
	o.omitString("format", s.Format)
	o.omitString("description", s.Description)
	if len(s.Enum) > 0 {
		o.key("enum")
		e.enum(s.Enum)
	}
	o.omitString("pattern", s.Pattern)
	o.omitString("contentEncoding", s.ContentEncoding)
	o.omitInt("minimum", s.Minimum)
	o.omitInt("maximum", s.Maximum)
	if s.Properties != nil {
		o.key("properties")
		e.properties(s.Properties)
	}
	if len(s.Required) > 0 {
		o.key("required")
		e.b = appendStrings(e.b, s.Required)
	}
	e.omitSchema(&o, "additionalProperties", s.AdditionalProperties)
	e.omitSchema(&o, "propertyNames", s.PropertyNames)
	if len(s.DependentSchemas) > 0 {
		o.key("dependentSchemas")
		encodeMap(e, s.DependentSchemas, (*encoder).schema)
	}
	e.omitSchema(&o, "items", s.Items)
	e.omitSchemas(&o, "allOf", s.AllOf)
	e.omitSchemas(&o, "anyOf", s.AnyOf)
	e.omitSchema(&o, "not", s.Not)
	o.omitBool("readOnly", s.ReadOnly)
	o.omitBool("writeOnly", s.WriteOnly)
	o.omitBool("deprecated", s.Deprecated)
	if len(s.Oneofs) > 0 {
		o.key("x-oneof")
		encodeMap(e, s.Oneofs, func(e *encoder, members []string) { e.b = appendStrings(e.b, members) })
	}
	o.end()
}

// omitSchema writes the member k: s unless s is nil (omitempty).
func (e *encoder) omitSchema(o *object, k string, s *Schema) {
	if s != nil {
		o.key(k)
		e.schema(s)
	}
}

// omitSchemas writes the member k: list unless it is empty (omitempty).
func (e *encoder) omitSchemas(o *object, k string, list []*Schema) {
	if len(list) == 0 {
		return
	}
	o.key(k)
	e.b = append(e.b, '[')
	for i, s := range list {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.schema(s)
	}
	e.b = append(e.b, ']')
}

// properties writes p as Properties.MarshalJSON does: an object in
// declaration order.
func (e *encoder) properties(p *Properties) {
	o := e.object()
	for i, name := range p.Names {
		o.mapKey(name)
		e.schema(p.Schemas[i])
	}
	o.end()
}

// enum writes an enum's values: the strings and integers the builder
// puts there written directly, any other value as encoding/json writes
// it.
func (e *encoder) enum(values []any) {
	e.b = append(e.b, '[')
	for i, v := range values {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		switch v := v.(type) {
		case string:
			e.b = appendString(e.b, v)
		case int32:
			e.b = strconv.AppendInt(e.b, int64(v), 10)
		default:
			e.b = appendValue(e.b, v)
		}
	}
	e.b = append(e.b, ']')
}

// appendValue appends v as encoding/json writes it, without escaping
// HTML.
func appendValue(b []byte, v any) []byte {
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("openapi: internal error: " + err.Error()) // the model has only encodable values
	}
	out := buf.Bytes()
	return out[:len(out)-1] // Encode's newline
}
