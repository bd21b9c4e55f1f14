// Package validation is the gateway's seam for request validation: a
// Validator gives each method's check, compiled at registration; a check
// returns an *Error for a request message that breaks the rules, which
// Status turns into 400 INVALID_ARGUMENT with a google.rpc.BadRequest.
// The rules themselves (protovalidate, CEL) live outside the core
// module (validateprotorest).
package validation

import (
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protopath"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A Validator gives the checks of methods' request messages.
type Validator interface {
	// ForMethod returns the check of md's request messages, or nil when
	// they carry no rules. It is called once per method when the method
	// is registered, and again when a backend's descriptors are
	// reloaded; its error (a rule that cannot be compiled) fails the
	// registration. The check returns nil for a valid message, an *Error
	// for one that breaks rules, any other error for a failure to check
	// (answered 500 INTERNAL unless it is a status).
	ForMethod(md protoreflect.MethodDescriptor) (check func(proto.Message) error, err error)
}

// A Violation is one rule a request message breaks.
type Violation struct {
	// Field leads from the request message (protopath.Root) to the field
	// that breaks the rule, through FieldAccess, ListIndex and MapIndex
	// steps; the root alone is the message itself (a message rule).
	Field protopath.Path
	// Oneof is set when the rule is a oneof's (required): the oneof, in
	// the message Field leads to.
	Oneof protoreflect.OneofDescriptor
	// Rule identifies the rule, such as "string.min_len" or a CEL rule's
	// id.
	Rule string
	// Message says what is wrong, for the client.
	Message string
}

// Error is a check's error for a request message that breaks rules.
type Error struct {
	Violations []Violation
	// Details are attached to the error after the google.rpc.BadRequest
	// the gateway builds from Violations, such as buf.validate.Violations.
	Details []proto.Message
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("invalid request")
	for i, v := range e.Violations {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(v.Message)
	}
	return b.String()
}
