package remote

import (
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
// checks a binary body as decoding it would, and an empty read-only
// request for the query parameters' checks.
type WirePlan struct {
	scan *wirescan.Message
	zero protoreflect.Message
}

// NewWirePlan returns the plan for the request plan p, or nil when its
// requests must be decoded: a body other than "*" (the bytes are a
// field's, not the request's) or into a google.api.HttpBody (the bytes
// are its data); a path variable that appending cannot set (see
// appendable); a request that is checked (p.Check: the message must be
// built). scans compiles the types.
func NewWirePlan(scans *wirescan.Types, p *bind.Request) *WirePlan {
	if p.Body.Kind != bind.BodyAll || p.Body.Raw != nil || p.Check != nil {
		return nil
	}
	for _, pv := range p.Vars {
		if !appendable(pv.Field.Path()) {
			return nil
		}
	}
	return &WirePlan{scan: scans.Message(p.Input), zero: dynamicpb.NewMessageType(p.Input).Zero()}
}

// appendable reports whether appending the encoding of a path variable's
// field to the body sets it as decoding and then setting it does: the path
// wins over the body. That holds for a singular scalar, whose last value
// wins, reached through singular messages, which merge. Not for a message
// (a Timestamp from the path replaces the body's; appended, it would
// merge), a repeated field (replaced, not extended), or a path through a
// oneof member (setting it fails when the body set another member, which
// only decoding the body tells).
func appendable(path []protoreflect.FieldDescriptor) bool {
	leaf := path[len(path)-1]
	if leaf.IsList() || leaf.IsMap() || leaf.Message() != nil {
		return false
	}
	for _, fd := range path {
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			return false
		}
	}
	return true
}

// request returns x's request as wire bytes: the body's own bytes when
// it is binary (the built-in binary codec), the JSON body transcoded
// straight to the wire form when it is JSON (the built-in JSON codec: no
// dynamic message is built), with the path variables' fields appended. It
// reports false whenever anything differs from the plain case: the scan
// rejects the body, the JSON decoder leaves it to protojson, a path
// variable or query parameter fails, or a path variable's value is one
// that encodes to nothing (the zero value of a field without presence:
// appended, it would not override the body's). The caller then decodes
// the request, which gives the error, or the same request, as before.
//
// The bytes travel as the unknown fields of an Empty, which grpc's codec
// writes out verbatim. A client interceptor on the connection sees that
// Empty, not a message of the method's input type.
func (w *WirePlan) request(x *exchange.Exchange) (proto.Message, bool) {
	plan, in := x.Binding.Request, &x.Input
	var data []byte
	switch {
	case in.Format.Proto:
		if w.scan.Scan(in.Body) != nil {
			return nil, false
		}
		data = in.Body
	case in.Format.JSON != nil:
		buf := x.Scratch() // released with the exchange, after the call
		var ok bool
		if data, ok = in.Format.JSON.AppendProto(buf.AvailableBuffer(), plan.Input, in.Body); !ok {
			return nil, false
		}
		bufpool.KeepRoom(buf, cap(data))
	default:
		return nil, false
	}
	if len(plan.Vars) > 0 {
		bound := dynamicpb.NewMessage(plan.Input)
		for i, pv := range plan.Vars {
			val, err := plan.VarValue(in.Vars, i)
			if err != nil || pv.Field.SetPathValue(bound, val) != nil {
				return nil, false
			}
		}
		for _, pv := range plan.Vars {
			if !isSet(bound, pv.Field.Path()) {
				return nil, false
			}
		}
		// Not AllowPartial: a message on a variable's path that lacks a
		// required field fails here, and the request is decoded instead
		// (to fail in grpc's codec, unless the body set that field).
		var err error
		if data, err = (proto.MarshalOptions{}).MarshalAppend(data, bound); err != nil {
			return nil, false
		}
	}
	// The rule's body is "*", so the query sets no field: it only checks
	// that the parameters are ignored ones.
	if in.RawQuery != "" && plan.Query.Bind(w.zero, in.RawQuery) != nil {
		return nil, false
	}
	msg := new(emptypb.Empty)
	msg.ProtoReflect().SetUnknown(data)
	x.Received++
	return msg, true
}

// isSet reports whether the field at path is set in m, so that its
// encoding is not empty.
func isSet(m *dynamicpb.Message, path []protoreflect.FieldDescriptor) bool {
	pm := protoreflect.Message(m)
	for _, fd := range path[:len(path)-1] {
		pm = pm.Get(fd).Message()
	}
	return pm.Has(path[len(path)-1])
}
