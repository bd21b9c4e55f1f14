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
// megabytes. Each model type has its method, which appends its members in
// the order of its struct's fields (see jsonwrite.go), a map's keys
// sorted.

// An encoder appends a document's JSON to a buffer.
type encoder struct {
	keys []string // the keys of the maps being written, sorted (see appendMap)
}

// document appends d and a newline, as json.Encoder does.
func (e *encoder) document(b []byte, d *Document) []byte {
	start := len(b)
	b = appendString(append(b, `,"openapi":`...), d.OpenAPI)
	b = e.info(append(b, `,"info":`...), &d.Info)
	if len(d.Servers) > 0 {
		b = e.servers(append(b, `,"servers":`...), d.Servers)
	}
	if len(d.Tags) > 0 {
		b = e.tags(append(b, `,"tags":`...), d.Tags)
	}
	b = appendMap(e, append(b, `,"paths":`...), d.Paths, (*encoder).pathItem)
	b = e.components(append(b, `,"components":`...), &d.Components)
	return append(endObject(b, start), '\n')
}

func (e *encoder) info(b []byte, info *Info) []byte {
	start := len(b)
	b = appendString(append(b, `,"title":`...), info.Title)
	b = appendString(append(b, `,"version":`...), info.Version)
	b = omitString(b, `,"description":`, info.Description)
	return endObject(b, start)
}

func (e *encoder) servers(b []byte, servers []Server) []byte {
	b = append(b, '[')
	for i := range servers {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(append(b, `{"url":`...), servers[i].URL)
		b = append(b, '}')
	}
	return append(b, ']')
}

func (e *encoder) tags(b []byte, tags []Tag) []byte {
	b = append(b, '[')
	for i := range tags {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(append(b, `{"name":`...), tags[i].Name)
		b = omitString(b, `,"description":`, tags[i].Description)
		b = append(b, '}')
	}
	return append(b, ']')
}

func (e *encoder) pathItem(b []byte, p *PathItem) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	start := len(b)
	b = e.omitOperation(b, `,"get":`, p.Get)
	b = e.omitOperation(b, `,"put":`, p.Put)
	b = e.omitOperation(b, `,"post":`, p.Post)
	b = e.omitOperation(b, `,"delete":`, p.Delete)
	b = e.omitOperation(b, `,"options":`, p.Options)
	b = e.omitOperation(b, `,"head":`, p.Head)
	b = e.omitOperation(b, `,"patch":`, p.Patch)
	b = e.omitOperation(b, `,"trace":`, p.Trace)
	if len(p.OtherMethods) > 0 {
		b = appendMap(e, append(b, `,"x-protorest-other-methods":`...), p.OtherMethods, (*encoder).operation)
	}
	return endObject(b, start)
}

// omitOperation appends the member key: op unless op is nil (omitempty).
func (e *encoder) omitOperation(b []byte, key string, op *Operation) []byte {
	if op == nil {
		return b
	}
	return e.operation(append(b, key...), op)
}

func (e *encoder) operation(b []byte, op *Operation) []byte {
	if op == nil {
		return append(b, "null"...)
	}
	start := len(b)
	if len(op.Tags) > 0 {
		b = appendStrings(append(b, `,"tags":`...), op.Tags)
	}
	b = omitString(b, `,"summary":`, op.Summary)
	b = omitString(b, `,"description":`, op.Description)
	b = appendString(append(b, `,"operationId":`...), op.OperationID)
	if len(op.Parameters) > 0 {
		b = append(b, `,"parameters":[`...)
		for i, p := range op.Parameters {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.parameter(b, p)
		}
		b = append(b, ']')
	}
	if op.RequestBody != nil {
		b = e.requestBody(append(b, `,"requestBody":`...), op.RequestBody)
	}
	b = appendMap(e, append(b, `,"responses":`...), op.Responses, (*encoder).response)
	b = omitTrue(b, `,"deprecated":`, op.Deprecated)
	b = omitString(b, `,"x-grpc-method":`, op.GRPCMethod)
	b = omitString(b, `,"x-protorest-streaming":`, op.Streaming)
	return endObject(b, start)
}

func (e *encoder) parameter(b []byte, p *Parameter) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	start := len(b)
	b = appendString(append(b, `,"name":`...), p.Name)
	b = appendString(append(b, `,"in":`...), p.In)
	b = omitString(b, `,"description":`, p.Description)
	b = omitTrue(b, `,"required":`, p.Required)
	b = omitTrue(b, `,"deprecated":`, p.Deprecated)
	b = omitString(b, `,"style":`, p.Style)
	if p.Explode != nil {
		b = strconv.AppendBool(append(b, `,"explode":`...), *p.Explode)
	}
	b = e.schema(append(b, `,"schema":`...), p.Schema)
	b = omitTrue(b, `,"x-multiSegment":`, p.MultiSegment)
	return endObject(b, start)
}

func (e *encoder) requestBody(b []byte, r *RequestBody) []byte {
	start := len(b)
	b = omitString(b, `,"description":`, r.Description)
	b = appendMap(e, append(b, `,"content":`...), r.Content, (*encoder).mediaType)
	b = omitTrue(b, `,"required":`, r.Required)
	return endObject(b, start)
}

func (e *encoder) response(b []byte, r *Response) []byte {
	if r == nil {
		return append(b, "null"...)
	}
	start := len(b)
	b = omitString(b, `,"$ref":`, r.Ref)
	b = omitString(b, `,"description":`, r.Description)
	if len(r.Content) > 0 {
		b = appendMap(e, append(b, `,"content":`...), r.Content, (*encoder).mediaType)
	}
	return endObject(b, start)
}

func (e *encoder) mediaType(b []byte, m *MediaType) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	start := len(b)
	b = e.omitSchema(b, `,"schema":`, m.Schema)
	return endObject(b, start)
}

func (e *encoder) components(b []byte, c *Components) []byte {
	start := len(b)
	b = appendMap(e, append(b, `,"schemas":`...), c.Schemas, (*encoder).schema)
	if len(c.Responses) > 0 {
		b = appendMap(e, append(b, `,"responses":`...), c.Responses, (*encoder).response)
	}
	return endObject(b, start)
}

func (e *encoder) schema(b []byte, s *Schema) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	start := len(b)
	b = omitString(b, `,"$ref":`, s.Ref)
	b = omitString(b, `,"type":`, s.Type)
	b = omitString(b, `,"format":`, s.Format)
	b = omitString(b, `,"description":`, s.Description)
	if len(s.Enum) > 0 {
		b = appendEnum(append(b, `,"enum":`...), s.Enum)
	}
	b = omitString(b, `,"pattern":`, s.Pattern)
	b = omitString(b, `,"contentEncoding":`, s.ContentEncoding)
	b = omitInt(b, `,"minimum":`, s.Minimum)
	b = omitInt(b, `,"maximum":`, s.Maximum)
	if s.Properties != nil {
		b = e.properties(append(b, `,"properties":`...), s.Properties)
	}
	if len(s.Required) > 0 {
		b = appendStrings(append(b, `,"required":`...), s.Required)
	}
	b = e.omitSchema(b, `,"additionalProperties":`, s.AdditionalProperties)
	b = e.omitSchema(b, `,"propertyNames":`, s.PropertyNames)
	if len(s.DependentSchemas) > 0 {
		b = appendMap(e, append(b, `,"dependentSchemas":`...), s.DependentSchemas, (*encoder).schema)
	}
	b = e.omitSchema(b, `,"items":`, s.Items)
	b = e.omitSchemas(b, `,"allOf":`, s.AllOf)
	b = e.omitSchemas(b, `,"anyOf":`, s.AnyOf)
	b = e.omitSchema(b, `,"not":`, s.Not)
	b = omitTrue(b, `,"readOnly":`, s.ReadOnly)
	b = omitTrue(b, `,"writeOnly":`, s.WriteOnly)
	b = omitTrue(b, `,"deprecated":`, s.Deprecated)
	if len(s.Oneofs) > 0 {
		b = appendMap(e, append(b, `,"x-oneof":`...), s.Oneofs, func(_ *encoder, b []byte, members []string) []byte {
			return appendStrings(b, members)
		})
	}
	return endObject(b, start)
}

// omitSchema appends the member key: s unless s is nil (omitempty).
func (e *encoder) omitSchema(b []byte, key string, s *Schema) []byte {
	if s == nil {
		return b
	}
	return e.schema(append(b, key...), s)
}

// omitSchemas appends the member key: list unless it is empty
// (omitempty).
func (e *encoder) omitSchemas(b []byte, key string, list []*Schema) []byte {
	if len(list) == 0 {
		return b
	}
	b = append(b, key...)
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.schema(b, s)
	}
	return append(b, ']')
}

// properties appends p as Properties.MarshalJSON writes it: an object in
// declaration order.
func (e *encoder) properties(b []byte, p *Properties) []byte {
	start := len(b)
	for i, name := range p.Names {
		b = e.schema(appendMapKey(b, name), p.Schemas[i])
	}
	return endObject(b, start)
}

// appendEnum appends an enum's values: the strings and integers the
// builder puts there directly, any other value as encoding/json writes
// it.
func appendEnum(b []byte, values []any) []byte {
	b = append(b, '[')
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		switch v := v.(type) {
		case string:
			b = appendString(b, v)
		case int32:
			b = strconv.AppendInt(b, int64(v), 10)
		default:
			b = appendValue(b, v)
		}
	}
	return append(b, ']')
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
