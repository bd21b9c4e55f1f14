// Package render is the pipeline's render stage: what goes back to the
// client. A Response plan, built at registration, encodes a method's
// response messages (the whole message or its response_body field, raw
// bytes for google.api.HttpBody, a remote backend's wire bytes as they
// are or straight to JSON); its sinks (exchange.Sink) take a call's
// messages and outcome to the client over HTTP: Unary (one response, also
// a client stream's) and Stream (a server stream, in the framing the
// client asked for). internal/ws has the WebSocket's.
package render

import (
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/jsonenc"
	"github.com/protorest/protorest/internal/negotiate"
	"github.com/protorest/protorest/internal/text"
	"github.com/protorest/protorest/internal/wellknown"
)

// A Response is how one rule's response messages are rendered, planned
// at registration.
type Response struct {
	Output protoreflect.MessageDescriptor
	Status int // of a successful response: 200 unless set otherwise

	// Raw is set when the rendered message is google.api.HttpBody: its
	// data is the body, its content type the response's.
	Raw *wellknown.HTTPBody
	// Wire is set for a remote method: messages are the backend's wire
	// bytes, carried as the unknown fields of an Empty (NewWireMessage).
	Wire bool

	field     protoreflect.FieldDescriptor   // response_body, or nil for the whole message
	parents   []protoreflect.FieldDescriptor // the singular message fields that lead to field
	isMessage bool                           // response_body names a singular message field
	json      *codec.JSON                    // renders a response_body that is not a message
}

// NewResponse plans the rendering of output messages, or of the field at
// the end of body (response_body's field path: singular message fields,
// then any field) when it is not empty. json is the gateway's built-in
// JSON codec.
func NewResponse(output protoreflect.MessageDescriptor, body []protoreflect.FieldDescriptor, status int, wire bool, json *codec.JSON) *Response {
	p := &Response{Output: output, Status: status, Wire: wire, json: json}
	if len(body) == 0 {
		p.Raw = wellknown.HTTPBodyOf(output)
		return p
	}
	p.field, p.parents = body[len(body)-1], body[:len(body)-1]
	if f := p.field; f.Message() != nil && !f.IsList() && !f.IsMap() {
		p.isMessage = true
		p.Raw = wellknown.HTTPBodyOf(f.Message())
	}
	return p
}

// Body returns the response_body field the plan renders, or nil when it
// renders the whole message.
func (p *Response) Body() protoreflect.FieldDescriptor { return p.field }

// NewWireMessage returns what a remote backend's response is received
// into: decoded into an Empty, every field is an unknown field, kept
// verbatim, so the message carries the backend's bytes with no types to
// build.
func NewWireMessage() *emptypb.Empty { return new(emptypb.Empty) }

// Append encodes msg in format f, appending to dst where it can (the
// built-in codecs), or takes the raw bytes and content type of a
// google.api.HttpBody. The bytes may be the message's own (HttpBody, a
// backend's binary response). A body of more than max bytes (0: no limit)
// is a 500 "response too large" (TooLarge), and the built-in codecs stop
// encoding as soon as they pass it (the JSON codec at its own MaxBytes,
// which the gateway sets to max). sized says that codec.Proto's Size has
// just measured msg (Holding), so that the binary codec takes the sizes
// it cached.
func (p *Response) Append(dst []byte, msg proto.Message, f *negotiate.Format, max int, sized bool) (body []byte, contentType string, err error) {
	if p.Wire {
		body, contentType, err = p.appendWire(dst, msg.ProtoReflect().GetUnknown(), f, max)
	} else {
		body, contentType, err = p.appendMessage(dst, msg, f, max, sized)
	}
	if errors.Is(err, codec.ErrTooLarge) || err == nil && max > 0 && len(body) > max {
		return nil, "", TooLarge(max)
	}
	return body, contentType, err
}

// Builds reports whether Append always builds its body in dst, or in a
// buffer it grew from dst: never the bytes of a message's own (a
// google.api.HttpBody's data, a backend's response), so that the caller
// may write in the body once it is sent.
func (p *Response) Builds() bool { return !p.Wire && p.Raw == nil }

// Holding estimates the most bytes that rendering msg in format f holds
// at once, from its protobuf size n (a remote backend's wire bytes are
// that size; a method's message is measured): the message, its encoding,
// and the encoder's bookkeeping (see holdingFactor).
func (p *Response) Holding(msg proto.Message, f *negotiate.Format) int {
	if !p.Wire {
		n := codec.Proto{}.Size(msg)
		switch {
		case p.Raw != nil:
			return n // the body is the google.api.HttpBody's own data
		case f.Proto:
			return 2 * n
		}
		return holdingFactor * n
	}
	n := len(msg.ProtoReflect().GetUnknown())
	switch {
	case p.field != nil || p.Raw != nil || f.JSON == nil && !f.Proto:
		return dynamicFactor * n // decoded into a dynamic message first (appendWire)
	case f.Proto:
		return n // the body is the backend's bytes
	}
	return holdingFactor * n
}

// holdingFactor is how many times its protobuf size rendering a message
// to JSON holds, at most, for the messages that make large responses,
// measured on a map of 200,000 short labels (jsonenc's
// BenchmarkLargeMap, 3.4 MB of wire bytes): the message's bytes (1), the
// JSON (0.9; a third more for base64 bytes), the sorted map's entries
// (32 bytes an entry of 17 wire bytes: 1.9). A list costs the encoder
// nothing beyond its JSON.
const holdingFactor = 4

// dynamicFactor is holdingFactor for a backend's response decoded into
// a dynamic message before it is rendered: 38 MB of dynamicpb for the
// 3.4 MB of the map above, then 20 MB for its JSON.
const dynamicFactor = 16

// TooLarge is the error of a response, or a message of a stream, larger
// than limit bytes once encoded: 500 INTERNAL "response too large", as
// Envoy's transcoder answers a response past max_response_body_size. The
// client asked for nothing wrong, so not RESOURCE_EXHAUSTED, whose 429
// tells it to retry (etcd#14997).
func TooLarge(limit int) error {
	return status.Error(codes.Internal, "response too large: larger than the limit of "+httperr.FormatBytes(int64(limit)))
}

// encodingError is the status of a failure to encode a response; one
// past the size limit is left for Append to report.
func encodingError(err error) error {
	if errors.Is(err, codec.ErrTooLarge) {
		return err
	}
	return status.Error(codes.Internal, "encoding the response: "+text.CleanError(err))
}

// appendWire encodes a remote response given as its wire bytes: straight
// to JSON for a whole-message JSON response, as they are for a binary one,
// and through a dynamic message otherwise (response_body, HttpBody, other
// codecs, types the wire transcoder leaves alone).
func (p *Response) appendWire(dst []byte, data []byte, f *negotiate.Format, max int) ([]byte, string, error) {
	if p.field == nil && p.Raw == nil {
		switch {
		case f.JSON != nil:
			body, err := f.JSON.AppendWire(dst, p.Output, data)
			if err == nil {
				return body, codec.MediaJSON, nil
			}
			if !errors.Is(err, jsonenc.ErrUnsupported) {
				return nil, "", encodingError(err)
			}
		case f.Proto:
			return data, f.Media, nil // binary to binary: untouched
		}
	}
	msg := dynamicpb.NewMessage(p.Output)
	if err := proto.Unmarshal(data, msg); err != nil {
		return nil, "", status.Error(codes.Internal, "decoding the backend's response: "+text.CleanError(err))
	}
	return p.appendMessage(dst, msg, f, max, false)
}

// appendMessage encodes msg, a message of the method's output type; sized
// as Append's.
func (p *Response) appendMessage(dst []byte, msg proto.Message, f *negotiate.Format, max int, sized bool) (body []byte, contentType string, err error) {
	pm := msg.ProtoReflect()
	contentType = f.Media
	parent := pm
	for _, fd := range p.parents { // an unset one reads as empty
		parent = parent.Get(fd).Message()
	}
	target := parent
	if p.isMessage {
		target = parent.Get(p.field).Message()
	}
	switch {
	case p.Raw != nil:
		contentType = target.Get(p.Raw.ContentType).String()
		if contentType == "" {
			contentType = codec.MediaOctetStream
		}
		body = target.Get(p.Raw.Data).Bytes()
	case p.field == nil && sized && f.Proto && f.JSON == nil:
		body, err = codec.Proto{}.AppendMarshalSized(dst, msg, max)
	case p.field == nil:
		body, err = marshal(dst, f, msg, max)
	case p.isMessage:
		body, err = marshal(dst, f, target.Interface(), max)
	default:
		contentType = codec.MediaJSON
		body, err = p.json.AppendField(dst, parent.Interface(), p.field)
	}
	if err != nil {
		return nil, "", encodingError(err)
	}
	return body, contentType, nil
}

// marshal encodes msg in format f, appending to dst for the built-in
// JSON and binary codecs; the binary codec encodes nothing past max.
func marshal(dst []byte, f *negotiate.Format, msg proto.Message, max int) ([]byte, error) {
	switch {
	case f.JSON != nil:
		return f.JSON.AppendMarshal(dst, msg)
	case f.Proto:
		return codec.Proto{}.AppendMarshalWithin(dst, msg, max)
	}
	return f.Codec.Marshal(msg)
}
