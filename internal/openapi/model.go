package openapi

import (
	"bytes"
	"encoding/json"
)

// The OpenAPI 3.1 objects the document uses, as they are written: the
// field order is the order of the output, and omitempty leaves out what
// a route does not have. Maps are written in key order, which keeps the
// document deterministic. Build writes them with encode.go, which writes
// the bytes encoding/json writes for them (encode_test.go compares the
// two): a field added here is written there too.

// Document is an OpenAPI 3.1 document.
type Document struct {
	OpenAPI    string               `json:"openapi"`
	Info       Info                 `json:"info"`
	Servers    []Server             `json:"servers,omitempty"`
	Tags       []Tag                `json:"tags,omitempty"`
	Paths      map[string]*PathItem `json:"paths"`
	Components Components           `json:"components"`
}

// Info is the document's info object.
type Info struct {
	Title       string `json:"title"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
}

// Server is one server URL.
type Server struct {
	URL string `json:"url"`
}

// Tag is a service: its full name and leading comment.
type Tag struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// PathItem holds the operations of one path, by HTTP method.
type PathItem struct {
	Get     *Operation `json:"get,omitempty"`
	Put     *Operation `json:"put,omitempty"`
	Post    *Operation `json:"post,omitempty"`
	Delete  *Operation `json:"delete,omitempty"`
	Options *Operation `json:"options,omitempty"`
	Head    *Operation `json:"head,omitempty"`
	Patch   *Operation `json:"patch,omitempty"`
	Trace   *Operation `json:"trace,omitempty"`
	// OtherMethods are the operations of custom HTTP methods ("FOO"),
	// which OpenAPI 3.1 has no place for.
	OtherMethods map[string]*Operation `json:"x-protorest-other-methods,omitempty"`
}

// Operation is one route: a rule of a method, or a custom route.
type Operation struct {
	Tags        []string             `json:"tags,omitempty"`
	Summary     string               `json:"summary,omitempty"`
	Description string               `json:"description,omitempty"`
	OperationID string               `json:"operationId"`
	Parameters  []*Parameter         `json:"parameters,omitempty"`
	RequestBody *RequestBody         `json:"requestBody,omitempty"`
	Responses   map[string]*Response `json:"responses"`
	Deprecated  bool                 `json:"deprecated,omitempty"`
	GRPCMethod  string               `json:"x-grpc-method,omitempty"`
	Streaming   string               `json:"x-protorest-streaming,omitempty"` // "server", "client" or "bidi"
}

// Parameter is a path or query parameter.
type Parameter struct {
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Deprecated  bool    `json:"deprecated,omitempty"`
	Style       string  `json:"style,omitempty"`
	Explode     *bool   `json:"explode,omitempty"`
	Schema      *Schema `json:"schema"`
	// MultiSegment marks a path parameter that spans segments: its "/"
	// are sent as they are, not escaped.
	MultiSegment bool `json:"x-multiSegment,omitempty"`
}

// RequestBody is an operation's body.
type RequestBody struct {
	Description string      `json:"description,omitempty"`
	Content     *MediaTypes `json:"content"`
	Required    bool        `json:"required,omitempty"`
}

// Response is one response of an operation, or a reference to one.
type Response struct {
	Ref         string      `json:"$ref,omitempty"`
	Description string      `json:"description,omitempty"`
	Content     *MediaTypes `json:"content,omitempty"`
}

// MediaType is the schema of one content type.
type MediaType struct {
	Schema *Schema `json:"schema,omitempty"`
}

// MediaTypes are the content of a body, by media type, in order of
// preference: a client that takes the first, as Swagger UI's Try-it does
// for the Accept it sends, takes the best.
type MediaTypes struct {
	Names []string
	Types []*MediaType
}

// Add appends a media type.
func (m *MediaTypes) Add(name string, t *MediaType) {
	m.Names = append(m.Names, name)
	m.Types = append(m.Types, t)
}

// MarshalJSON writes the media types as an object, in order.
func (m *MediaTypes) MarshalJSON() ([]byte, error) {
	return marshalOrdered(m.Names, m.Types)
}

// Components holds the schemas, by full proto name, and the error
// response every operation refers to.
type Components struct {
	Schemas   map[string]*Schema   `json:"schemas"`
	Responses map[string]*Response `json:"responses,omitempty"`
}

// Schema is a JSON Schema (draft 2020-12, as OpenAPI 3.1 has it).
type Schema struct {
	Ref                  string              `json:"$ref,omitempty"`
	Type                 string              `json:"type,omitempty"`
	Format               string              `json:"format,omitempty"`
	Description          string              `json:"description,omitempty"`
	Enum                 []any               `json:"enum,omitempty"`
	Const                any                 `json:"const,omitempty"`
	Pattern              string              `json:"pattern,omitempty"`
	ContentEncoding      string              `json:"contentEncoding,omitempty"`
	MinLength            *uint64             `json:"minLength,omitempty"`
	MaxLength            *uint64             `json:"maxLength,omitempty"`
	Minimum              json.Number         `json:"minimum,omitempty"`
	ExclusiveMinimum     json.Number         `json:"exclusiveMinimum,omitempty"`
	Maximum              json.Number         `json:"maximum,omitempty"`
	ExclusiveMaximum     json.Number         `json:"exclusiveMaximum,omitempty"`
	Properties           *Properties         `json:"properties,omitempty"`
	Required             []string            `json:"required,omitempty"`
	MinProperties        *uint64             `json:"minProperties,omitempty"`
	MaxProperties        *uint64             `json:"maxProperties,omitempty"`
	AdditionalProperties *Schema             `json:"additionalProperties,omitempty"`
	PropertyNames        *Schema             `json:"propertyNames,omitempty"`
	DependentSchemas     map[string]*Schema  `json:"dependentSchemas,omitempty"`
	Items                *Schema             `json:"items,omitempty"`
	MinItems             *uint64             `json:"minItems,omitempty"`
	MaxItems             *uint64             `json:"maxItems,omitempty"`
	UniqueItems          bool                `json:"uniqueItems,omitempty"`
	AllOf                []*Schema           `json:"allOf,omitempty"`
	AnyOf                []*Schema           `json:"anyOf,omitempty"`
	Not                  *Schema             `json:"not,omitempty"`
	ReadOnly             bool                `json:"readOnly,omitempty"`
	WriteOnly            bool                `json:"writeOnly,omitempty"`
	Deprecated           bool                `json:"deprecated,omitempty"`
	Oneofs               map[string][]string `json:"x-oneof,omitempty"`
	// Rules are the rules of a field or a message that no keyword says
	// (see Constraints), under protovalidate's name, the rule language a
	// SchemaHook speaks.
	Rules []SchemaRule `json:"x-buf-validate,omitempty"`
}

// A SchemaRule is a rule no JSON Schema keyword says: a CEL expression with its
// message, or a standard rule by its id with its value.
type SchemaRule struct {
	ID         string `json:"id,omitempty"`
	Message    string `json:"message,omitempty"`
	Expression string `json:"expression,omitempty"`
	Value      any    `json:"value,omitempty"`
}

// Properties are a schema's properties in declaration order.
type Properties struct {
	Names   []string
	Schemas []*Schema
}

// Add appends a property.
func (p *Properties) Add(name string, s *Schema) {
	p.Names = append(p.Names, name)
	p.Schemas = append(p.Schemas, s)
}

// MarshalJSON writes the properties as an object, in order. Like Build,
// it leaves '<', '>' and '&' as they are (json.Marshal would escape them,
// and only inside properties).
func (p *Properties) MarshalJSON() ([]byte, error) {
	return marshalOrdered(p.Names, p.Schemas)
}

// marshalOrdered writes names and their values as an object, in order,
// leaving '<', '>' and '&' as they are.
func marshalOrdered[V any](names []string, values []V) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(name); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(values[i]); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
