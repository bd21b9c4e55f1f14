package validation

import (
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
)

// A Named is a violation with its field named as the client wrote it.
type Named struct {
	*Violation
	Field string // "" for the message itself
}

// Status is the error of a request that breaks rules: INVALID_ARGUMENT,
// "invalid request: field: message; …", with a google.rpc.BadRequest
// detail holding one FieldViolation per violation (field, description:
// the message, reason: the rule id in upper snake case, as
// error_details.proto asks), then e's own details.
func Status(e *Error, named []Named) error {
	var msg strings.Builder
	msg.WriteString("invalid request")
	br := &errdetails.BadRequest{FieldViolations: make([]*errdetails.BadRequest_FieldViolation, len(named))}
	for i, n := range named {
		if i == 0 {
			msg.WriteString(": ")
		} else {
			msg.WriteString("; ")
		}
		if n.Field != "" {
			msg.WriteString(n.Field)
			msg.WriteString(": ")
		}
		msg.WriteString(n.Message)
		br.FieldViolations[i] = &errdetails.BadRequest_FieldViolation{
			Field:       n.Field,
			Description: n.Message,
			Reason:      Reason(n.Rule),
		}
	}
	details := make([]protoadapt.MessageV1, 0, 1+len(e.Details))
	details = append(details, br)
	for _, d := range e.Details {
		details = append(details, protoadapt.MessageV1Of(d))
	}
	st, err := status.New(codes.InvalidArgument, msg.String()).WithDetails(details...)
	if err != nil { // a detail that does not marshal: the violations still go
		st, _ = status.New(codes.InvalidArgument, msg.String()).WithDetails(br)
	}
	return st.Err()
}

// Reason is a rule id as a FieldViolation's reason, which
// error_details.proto asks to match [A-Z][A-Z0-9_]+[A-Z0-9]:
// "string.min_len" is STRING_MIN_LEN. Every other character is '_', a
// trailing '_' is dropped, and an id that would not start with a letter
// or is shorter than three characters gets "RULE_" before it ("RULE" for
// none).
func Reason(rule string) string {
	b := make([]byte, 0, len(rule)+5)
	for i := 0; i < len(rule); i++ {
		c := rule[i]
		switch {
		case 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		case 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		default:
			c = '_'
		}
		if c == '_' && len(b) > 0 && b[len(b)-1] == '_' {
			continue
		}
		b = append(b, c)
	}
	for len(b) > 0 && b[len(b)-1] == '_' {
		b = b[:len(b)-1]
	}
	if len(b) < 3 || b[0] < 'A' || b[0] > 'Z' {
		if len(b) > 0 && b[0] == '_' {
			b = b[1:]
		}
		if len(b) == 0 {
			return "RULE"
		}
		b = append([]byte("RULE_"), b...)
	}
	return string(b)
}
