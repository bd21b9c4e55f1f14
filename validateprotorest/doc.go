// Package validateprotorest checks a protorest gateway's requests against
// their protovalidate rules (buf.validate annotations) with
// protovalidate-go, before they reach the method:
//
//	gw := protorest.NewGateway(protorest.WithValidation(validateprotorest.New()))
//
// A method whose request message carries no rule (itself, a field, a
// oneof, or a message it holds) gets no check and costs nothing per
// request. A method with rules gets them compiled when it is registered;
// a rule protovalidate cannot compile (a CEL expression that does not
// type-check, a rule unknown to this version) fails the registration,
// naming the method and the rule, instead of being skipped.
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
// This module is apart from protorest's core so that programs that do
// not validate do not link protovalidate and CEL.
package validateprotorest
