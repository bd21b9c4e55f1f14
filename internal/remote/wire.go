package remote

import (
	"bytes"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/bufpool"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/wirescan"
)

// A WirePlan is how a remote unary rule sends a request to the backend as
// wire bytes, with no message built: its type compiled for the scan that
// checks a binary body as decoding it would (for a body "*"), and its
// body field's records (for a body bound to a message field).
type WirePlan struct {
	scan  *wirescan.Message
	field *fieldBody
}

// NewWirePlan returns the plan for the request plan p, or nil when its
// requests must be decoded: a body into a google.api.HttpBody (the bytes
// are its data), or bound to a field that newFieldBody does not take, or
// to one whose field mask a PATCH derives (p.Mask); a path variable that
// appending cannot set (see appendable); a required field that the path
// variables and the body field leave unset on the request or on their
// way, unless the body is "*" and there are no variables (decoding would
// check it; the bytes would not be, see requiredSet). scans compiles the
// types.
func NewWirePlan(scans *wirescan.Types, p *bind.Request) *WirePlan {
	if p.Body.Raw != nil || p.Body.Kind == bind.BodyField && p.Mask != nil {
		return nil
	}
	if (len(p.Vars) > 0 || p.Body.Kind != bind.BodyAll) && !requiredSet(p) {
		return nil
	}
	for _, pv := range p.Vars {
		if !appendable(pv.Field.Path()) {
			return nil
		}
	}
	w := new(WirePlan)
	switch p.Body.Kind {
	case bind.BodyAll:
		w.scan = scans.Message(p.Input)
	case bind.BodyField:
		if w.field = newFieldBody(scans, p.Body.Path); w.field == nil {
			return nil
		}
	}
	return w
}

// appendable reports whether appending the encoding of a path variable's
// field to the body sets it as decoding and then setting it does: the path
// wins over the body. That holds for a singular scalar, whose last value
// wins, reached through singular messages, which merge. Not for a message
// (a Timestamp from the path replaces the body's; appended, it would
// merge), a repeated field (replaced, not extended), a path through a
// oneof member (setting it fails when the body set another member, which
// only decoding the body tells), or through a group (delimited, not
// length-prefixed).
func appendable(path []protoreflect.FieldDescriptor) bool {
	leaf := path[len(path)-1]
	if leaf.IsList() || leaf.IsMap() || leaf.Message() != nil {
		return false
	}
	for _, fd := range path {
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			return false
		}
		if fd != leaf && fd.Kind() != protoreflect.MessageKind {
			return false
		}
	}
	return true
}

// requiredSet reports whether p's path variables and body field set
// every required field of the request message and of each message on
// their way (the body field's own type is the body's to check), so that
// the bytes they append pass the check of required fields that encoding
// a message holding only them makes: a path through a required field
// (req.id) sets it.
func requiredSet(p *bind.Request) bool {
	type at struct {
		parent string // the field numbers from the request down, "/1/3"
		field  protoreflect.FieldNumber
	}
	set := map[at]bool{}
	messages := map[string]protoreflect.MessageDescriptor{"": p.Input}
	paths := make([][]protoreflect.FieldDescriptor, 0, len(p.Vars)+1)
	for _, pv := range p.Vars {
		paths = append(paths, pv.Field.Path())
	}
	if p.Body.Kind == bind.BodyField {
		paths = append(paths, p.Body.Path)
	}
	for _, path := range paths {
		parent := ""
		for i, fd := range path {
			set[at{parent, fd.Number()}] = true
			parent += "/" + strconv.Itoa(int(fd.Number()))
			if md := fd.Message(); md != nil && i < len(path)-1 {
				messages[parent] = md
			}
		}
	}
	for parent, md := range messages {
		required := md.RequiredNumbers()
		for i := range required.Len() {
			if !set[at{parent, required.Get(i)}] {
				return false
			}
		}
	}
	return true
}

// request returns x's request as wire bytes: for a rule whose body is
// "*", the body's own bytes when it is binary (the built-in binary
// codec), the JSON body transcoded straight to the wire form when it is
// JSON (the built-in JSON codec: no dynamic message is built); for a body
// bound to a message field, the same inside the field's records
// (fieldBody); for a rule without a body, none; with the path variables'
// fields appended (bind.Field.AppendPathWire), then the query
// parameters' (bind.Query.AppendWire). It reports false whenever
// anything differs from the plain case: the scan rejects the body, the
// JSON decoder leaves it to protojson, a body field's body is empty, a
// path variable or query parameter fails or is one the bytes cannot
// express (see AppendWire), or a path variable's value is one that
// encodes to nothing (the zero value of a field without presence:
// appended, it would not override the body's).
// The caller then decodes the request, which gives the error, or the same
// request, as before. A request of a method with rules (plan.Check) is
// checked as decoding checks it (see check): the error is its violations.
//
// The bytes travel as the unknown fields of an Empty, which grpc's codec
// writes out verbatim. A client interceptor on the connection sees that
// Empty, not a message of the method's input type.
func (w *WirePlan) request(x *exchange.Exchange) (proto.Message, bool, error) {
	plan, in := x.Binding.Request, &x.Input
	var data []byte
	var scratch *bytes.Buffer // released with the exchange, after the call
	switch {
	case plan.Body.Kind == bind.BodyNone:
		scratch = x.Scratch()
		data = scratch.AvailableBuffer()
	case plan.Body.Kind == bind.BodyField:
		scratch = x.Scratch()
		var ok bool
		if data, ok = w.field.encode(scratch.AvailableBuffer(), in); !ok {
			return nil, false, nil
		}
	case in.Format.Proto:
		if w.scan.Scan(in.Body) != nil {
			return nil, false, nil
		}
		data = in.Body
	case in.Format.JSON != nil:
		scratch = x.Scratch()
		var ok bool
		if data, ok = in.Format.JSON.AppendProto(scratch.AvailableBuffer(), plan.Input, in.Body); !ok {
			return nil, false, nil
		}
	default:
		return nil, false, nil
	}
	for i, pv := range plan.Vars {
		val, err := plan.VarValue(in.Vars, i)
		if err != nil {
			return nil, false, nil
		}
		var ok bool
		if data, ok = pv.Field.AppendPathWire(data, val); !ok {
			return nil, false, nil
		}
	}
	if in.RawQuery != "" {
		// For a body "*" the parameters may only be ignored ones.
		var ok bool
		if data, ok = plan.Query.AppendWire(data, in.RawQuery); !ok {
			return nil, false, nil
		}
	}
	if scratch != nil {
		bufpool.KeepRoom(scratch, cap(data))
	}
	if plan.Check != nil {
		if ok, err := check(plan, in, data); !ok || err != nil {
			return nil, ok, err
		}
	}
	msg := new(emptypb.Empty)
	msg.ProtoReflect().SetUnknown(data)
	x.Received++
	return msg, true, nil
}

// check checks the request that data encodes with plan's rules, as
// decoding it checks it (exchange.Exchange's decodeInput): a message is
// built from the bytes for the rules alone, and the bytes are sent. It
// reports false if they do not unmarshal (they do: the caller decodes).
// Unmarshalling them costs less than marshalling the decoded message
// (validateprotorest's BenchmarkUnary, docs/benchmarks.md).
func check(plan *bind.Request, in *bind.Input, data []byte) (bool, error) {
	msg := dynamicpb.NewMessage(plan.Input)
	if (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(data, msg) != nil {
		return false, nil
	}
	return true, plan.Validate(msg, in)
}
