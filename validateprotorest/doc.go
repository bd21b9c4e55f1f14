// Package validateprotorest checks a protorest gateway's requests against
// their protovalidate rules (buf.validate annotations) with
// protovalidate-go, before they reach the method:
//
//	gw := protorest.NewGateway(protorest.WithValidation(validateprotorest.New()))
//
// A method whose request message carries no rule (itself, a field, a
// oneof, or a message it holds) gets no check. A method with rules gets
// them compiled when it is registered; a rule protovalidate cannot
// compile (a CEL expression that does not type-check, a rule unknown to
// this version) fails the registration, naming the method and the rule,
// instead of being skipped.
//
// Descriptors loaded at run time (server reflection, descriptor sets,
// .proto files) are checked as generated types are: their rules,
// whether the options hold them as unknown bytes or as a dynamic
// extension, are read again with protovalidate's own extension types.
//
// A request that breaks rules is answered 400 INVALID_ARGUMENT with a
// google.rpc.BadRequest detail, one FieldViolation per violation (the
// field as the client wrote it: a path variable's name, a query
// parameter's, else the path from the request message in the body's
// JSON names; the rule's message; the rule id in upper snake case), and
// buf.validate.Violations as a second detail, for clients that read it.
// The method is not called.
//
// The Validator is also a protorest.OpenAPISchemaHook: given to
// WithValidation, it writes the rules it checks into the gateway's OpenAPI
// document, each rule JSON Schema can say as its keyword (minLength,
// pattern, format, minimum, exclusiveMaximum, enum, uniqueItems…), the
// rest (CEL rules, bytes' and 64-bit integers' rules, the well-known
// types') under x-buf-validate.
//
// This module is apart from protorest's core so that programs that do
// not validate do not link protovalidate and CEL.
package validateprotorest
