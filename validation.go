package protorest

import (
	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/validation"
)

// A Validator checks request messages against their rules, such as
// protovalidate's buf.validate annotations (module validateprotorest).
// Its ForMethod gives one method's check, compiled when the method is
// registered (and again when a backend's descriptors are reloaded): nil
// for a method without rules, which then costs nothing per request; an
// error for a rule that cannot be compiled, which fails the registration.
// The check returns nil for a valid message, a *ValidationError for one
// that breaks rules, and any other error for a failure to check (answered
// as its status, or 500 INTERNAL).
type Validator = validation.Validator

// A Violation is one rule a request message breaks: the field, from the
// request message (a protopath.Path: the root alone is the message
// itself), the oneof when the rule is a oneof's, the rule's id and its
// message.
type Violation = validation.Violation

// A ValidationError is a Validator's error for a request message that
// breaks rules. The client gets 400 INVALID_ARGUMENT with a
// google.rpc.BadRequest detail, one FieldViolation per violation (field:
// the field as the client wrote it, description: the message, reason: the
// rule id in upper snake case), followed by the error's Details.
type ValidationError = validation.Error

// WithValidation checks every request message with v after it is bound
// (body, path, query) and before the method is called: in-process and
// remote, each message of a client stream, REST and WebSocket alike. A
// message that breaks a rule is answered 400 and never reaches the
// method. A Validator that is also an OpenAPISchemaHook (validateprotorest's)
// writes the rules into the OpenAPI document. The default is no checks:
// in-process services may check in an interceptor already.
func WithValidation(v Validator) Option {
	return optionFunc(func(c *config.Config) { c.Validation = v })
}
