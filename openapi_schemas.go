package protorest

import (
	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/openapi"
)

// An OpenAPISchemaHook says in the OpenAPI document's JSON Schemas what
// the rules the descriptors carry ask of fields and messages. Each method
// returns nil for none. validateprotorest's Validator is one: given to
// WithValidation, it documents the rules it checks.
type OpenAPISchemaHook = openapi.SchemaHook

// OpenAPIConstraints are a field's or a message's rules as JSON Schema
// keywords (minLength, maximum, exclusiveMinimum, pattern, format, enum,
// const, minItems, uniqueItems, maxProperties, required…), each only
// where it fits the field's JSON value, and the rules no keyword says,
// written under x-buf-validate.
type OpenAPIConstraints = openapi.Constraints

// An OpenAPIRule is a rule no JSON Schema keyword says: a CEL expression
// with its message, or a standard rule by its id with its value.
type OpenAPIRule = openapi.SchemaRule

// WithOpenAPISchemaHook writes what h says of the rules of fields and
// messages into the OpenAPI document's schemas. By default the Validator
// of WithValidation does when it is an OpenAPISchemaHook; this option
// documents rules without checking them (when the service checks them
// itself), or replaces the Validator's.
func WithOpenAPISchemaHook(h OpenAPISchemaHook) Option {
	return optionFunc(func(c *config.Config) { c.OpenAPI.Schemas = h })
}
