package bind

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protopath"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/text"
	"github.com/protorest/protorest/internal/validation"
)

// Validate checks m, filled from in, with p.Check (which must not be
// nil). A message that breaks rules gets INVALID_ARGUMENT with a
// google.rpc.BadRequest whose fields are named as the client of in wrote
// them (FieldName); a failure to check, its status, or INTERNAL.
func (p *Request) Validate(m proto.Message, in *Input) error {
	err := p.Check(m)
	if err == nil {
		return nil
	}
	var ve *validation.Error
	if !errors.As(err, &ve) {
		if _, ok := status.FromError(err); ok {
			return err
		}
		return status.Error(codes.Internal, "checking the request: "+text.CleanError(err))
	}
	named := make([]validation.Named, len(ve.Violations))
	for i := range ve.Violations {
		v := &ve.Violations[i]
		named[i] = validation.Named{Violation: v, Field: p.FieldName(v, in)}
	}
	return validation.Status(ve, named)
}

// FieldName names the field of v as the client of in wrote it: a path
// variable's name as the template writes it, a query parameter's name as
// the query gives it, else the field's path from the request message in
// the body's names: JSON names (proto names with the gateway's
// UseProtoNames, or for a body in the built-in binary format), "[i]" for
// a list element, `["key"]` or "[key]" for a map value. What lies below
// the variable or the parameter is added in the body's names. "" is the
// message itself.
func (p *Request) FieldName(v *validation.Violation, in *Input) string {
	fds := make([]protoreflect.FieldDescriptor, 0, len(v.Field))
	for _, s := range v.Field {
		if s.Kind() == protopath.FieldAccessStep {
			fds = append(fds, s.FieldDescriptor())
		}
	}
	protoNames := in.Format != nil && in.Format.Proto // a binary body names no field
	if p.json != nil && p.json.MarshalOptions.UseProtoNames {
		protoNames = true
	}
	for _, pv := range p.Vars {
		if hasPrefix(fds, pv.Field.Path()) {
			return stepNames(pv.Name, v, len(pv.Field.Path()), protoNames)
		}
	}
	if in.RawQuery != "" && p.Query != nil {
		if name, n, ok := p.Query.NameOf(in.RawQuery, fds); ok {
			return stepNames(name, v, n, protoNames)
		}
	}
	return stepNames("", v, 0, protoNames)
}

// hasPrefix reports whether path starts with prefix.
func hasPrefix(path, prefix []protoreflect.FieldDescriptor) bool {
	return len(prefix) <= len(path) && slices.Equal(path[:len(prefix)], prefix)
}

// stepNames appends to name the steps of v's field after its first skip
// field accesses, and v's oneof.
func stepNames(name string, v *validation.Violation, skip int, protoNames bool) string {
	b := []byte(name)
	fields := 0
	for _, s := range v.Field {
		switch s.Kind() {
		case protopath.FieldAccessStep:
			fields++
			if fields <= skip {
				continue
			}
			if len(b) > 0 {
				b = append(b, '.')
			}
			fd := s.FieldDescriptor()
			if protoNames || fd.IsExtension() {
				b = append(b, fd.TextName()...)
			} else {
				b = append(b, fd.JSONName()...)
			}
		case protopath.ListIndexStep:
			if fields < skip {
				continue
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.ListIndex()), 10)
			b = append(b, ']')
		case protopath.MapIndexStep:
			if fields < skip {
				continue
			}
			b = appendMapKey(b, s.MapIndex())
		}
	}
	if v.Oneof != nil {
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, v.Oneof.Name()...)
	}
	return string(b)
}

// appendMapKey appends a map key in brackets: a string quoted.
func appendMapKey(b []byte, k protoreflect.MapKey) []byte {
	if s, ok := k.Interface().(string); ok {
		return append(strconv.AppendQuote(append(b, '['), s), ']')
	}
	return append(append(append(b, '['), k.String()...), ']')
}

// NameOf finds the parameter of rawQuery that set the field at the start
// of path: its name as given (percent-decoded), and how many of path's
// fields it covers.
func (q *Query) NameOf(rawQuery string, path []protoreflect.FieldDescriptor) (string, int, bool) {
	if q.bodyAll {
		return "", 0, false
	}
	for rawQuery != "" {
		var piece string
		piece, rawQuery, _ = strings.Cut(rawQuery, "&")
		rawName, _, _ := strings.Cut(piece, "=")
		name, ok := unescape(rawName, false)
		if !ok || name == "" {
			continue
		}
		plans, err := q.resolve(nil, name)
		if err != nil || len(plans) == 0 {
			continue
		}
		if hasPrefix(path, planFields(plans)) {
			return name, len(plans), true
		}
	}
	return "", 0, false
}
