package openapi

import (
	"bytes"
	"encoding/json"
	"slices"
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

// document appends d and a newline, as json.Encoder does. b grows once,
// to an estimate of d's size.
func (e *encoder) document(b []byte, d *Document) []byte {
	const pathSize, schemaSize = 1536, 1024 // about the bytes of a path and of a schema, enough for most
	b = slices.Grow(b, pathSize*len(d.Paths)+schemaSize*len(d.Components.Schemas))
	start := len(b)
	b = appendString(append(b, `,"openapi":`...), d.OpenAPI)
	b = e.info(append(b, `,"info":`...), &d.Info)
	b = omitList(e, b, `,"servers":`, d.Servers, (*encoder).server)
	b = omitList(e, b, `,"tags":`, d.Tags, (*encoder).tag)
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

func (e *encoder) server(b []byte, s Server) []byte {
	start := len(b)
	b = appendString(append(b, `,"url":`...), s.URL)
	return endObject(b, start)
}

func (e *encoder) tag(b []byte, t Tag) []byte {
	start := len(b)
	b = appendString(append(b, `,"name":`...), t.Name)
	b = omitString(b, `,"description":`, t.Description)
	return endObject(b, start)
}

func (e *encoder) pathItem(b []byte, p *PathItem) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	start := len(b)
	b = omitObject(e, b, `,"get":`, p.Get, (*encoder).operation)
	b = omitObject(e, b, `,"put":`, p.Put, (*encoder).operation)
	b = omitObject(e, b, `,"post":`, p.Post, (*encoder).operation)
	b = omitObject(e, b, `,"delete":`, p.Delete, (*encoder).operation)
	b = omitObject(e, b, `,"options":`, p.Options, (*encoder).operation)
	b = omitObject(e, b, `,"head":`, p.Head, (*encoder).operation)
	b = omitObject(e, b, `,"patch":`, p.Patch, (*encoder).operation)
	b = omitObject(e, b, `,"trace":`, p.Trace, (*encoder).operation)
	b = omitMap(e, b, `,"x-protorest-other-methods":`, p.OtherMethods, (*encoder).operation)
	return endObject(b, start)
}

func (e *encoder) operation(b []byte, op *Operation) []byte {
	if op == nil {
		return append(b, "null"...)
	}
	start := len(b)
	b = omitList(e, b, `,"tags":`, op.Tags, (*encoder).string)
	b = omitString(b, `,"summary":`, op.Summary)
	b = omitString(b, `,"description":`, op.Description)
	b = appendString(append(b, `,"operationId":`...), op.OperationID)
	b = omitList(e, b, `,"parameters":`, op.Parameters, (*encoder).parameter)
	b = omitObject(e, b, `,"requestBody":`, op.RequestBody, (*encoder).requestBody)
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
	b = e.mediaTypes(append(b, `,"content":`...), r.Content)
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
	b = omitObject(e, b, `,"content":`, r.Content, (*encoder).mediaTypes)
	return endObject(b, start)
}

func (e *encoder) mediaType(b []byte, m *MediaType) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	start := len(b)
	b = omitObject(e, b, `,"schema":`, m.Schema, (*encoder).schema)
	return endObject(b, start)
}

// mediaTypes appends m as MediaTypes.MarshalJSON writes it: an object in
// order of preference.
func (e *encoder) mediaTypes(b []byte, m *MediaTypes) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	start := len(b)
	for i, name := range m.Names {
		b = e.mediaType(appendMapKey(b, name), m.Types[i])
	}
	return endObject(b, start)
}

func (e *encoder) components(b []byte, c *Components) []byte {
	start := len(b)
	b = appendMap(e, append(b, `,"schemas":`...), c.Schemas, (*encoder).schema)
	b = omitMap(e, b, `,"responses":`, c.Responses, (*encoder).response)
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
	b = omitList(e, b, `,"enum":`, s.Enum, (*encoder).enumValue)
	if s.Const != nil {
		b = e.enumValue(append(b, `,"const":`...), s.Const)
	}
	b = omitString(b, `,"pattern":`, s.Pattern)
	b = omitString(b, `,"contentEncoding":`, s.ContentEncoding)
	b = omitUint(b, `,"minLength":`, s.MinLength)
	b = omitUint(b, `,"maxLength":`, s.MaxLength)
	b = omitNumber(b, `,"minimum":`, s.Minimum)
	b = omitNumber(b, `,"exclusiveMinimum":`, s.ExclusiveMinimum)
	b = omitNumber(b, `,"maximum":`, s.Maximum)
	b = omitNumber(b, `,"exclusiveMaximum":`, s.ExclusiveMaximum)
	b = omitObject(e, b, `,"properties":`, s.Properties, (*encoder).properties)
	b = omitList(e, b, `,"required":`, s.Required, (*encoder).string)
	b = omitUint(b, `,"minProperties":`, s.MinProperties)
	b = omitUint(b, `,"maxProperties":`, s.MaxProperties)
	b = omitObject(e, b, `,"additionalProperties":`, s.AdditionalProperties, (*encoder).schema)
	b = omitObject(e, b, `,"propertyNames":`, s.PropertyNames, (*encoder).schema)
	b = omitMap(e, b, `,"dependentSchemas":`, s.DependentSchemas, (*encoder).schema)
	b = omitObject(e, b, `,"items":`, s.Items, (*encoder).schema)
	b = omitUint(b, `,"minItems":`, s.MinItems)
	b = omitUint(b, `,"maxItems":`, s.MaxItems)
	b = omitTrue(b, `,"uniqueItems":`, s.UniqueItems)
	b = omitList(e, b, `,"allOf":`, s.AllOf, (*encoder).schema)
	b = omitList(e, b, `,"anyOf":`, s.AnyOf, (*encoder).schema)
	b = omitObject(e, b, `,"not":`, s.Not, (*encoder).schema)
	b = omitTrue(b, `,"readOnly":`, s.ReadOnly)
	b = omitTrue(b, `,"writeOnly":`, s.WriteOnly)
	b = omitTrue(b, `,"deprecated":`, s.Deprecated)
	b = omitMap(e, b, `,"x-oneof":`, s.Oneofs, func(e *encoder, b []byte, members []string) []byte {
		return appendList(e, b, members, (*encoder).string)
	})
	b = omitList(e, b, `,"x-buf-validate":`, s.Rules, (*encoder).rule)
	return endObject(b, start)
}

func (e *encoder) rule(b []byte, r SchemaRule) []byte {
	start := len(b)
	b = omitString(b, `,"id":`, r.ID)
	b = omitString(b, `,"message":`, r.Message)
	b = omitString(b, `,"expression":`, r.Expression)
	if r.Value != nil {
		b = e.enumValue(append(b, `,"value":`...), r.Value)
	}
	return endObject(b, start)
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

// enumValue appends one of an enum's values: the strings and integers
// the builder puts there directly, any other value as encoding/json
// writes it.
func (e *encoder) enumValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		return appendString(b, v)
	case int32:
		return strconv.AppendInt(b, int64(v), 10)
	}
	return appendValue(b, v)
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
