package bind

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/jsonscan"
	"github.com/protorest/protorest/internal/negotiate"
	"github.com/protorest/protorest/internal/route"
	"github.com/protorest/protorest/internal/text"
)

// Input is what one request gives a Request plan.
type Input struct {
	Body     []byte
	Format   *negotiate.Format // reads Body
	Header   http.Header       // its Content-Type types a google.api.HttpBody
	Vars     Vars
	RawQuery string
}

// Vars are the raw (percent-encoded) texts of a route match's variables
// (*route.Match).
type Vars interface{ RawVar(i int) string }

// Decode fills m, the method's request message, from in: body first,
// then path variables, then query parameters, then the derived field
// mask. Its errors are statuses (INVALID_ARGUMENT for bad input).
func (p *Request) Decode(m proto.Message, in *Input) error {
	pm := m.ProtoReflect()
	if err := p.decodeBody(pm, in); err != nil {
		return err
	}
	for i, pv := range p.Vars {
		val, err := p.VarValue(in.Vars, i)
		if err != nil {
			return err
		}
		if err := pv.Field.SetPathValue(pm, val); err != nil {
			return err
		}
	}
	if in.RawQuery != "" {
		if err := p.Query.Bind(pm, in.RawQuery); err != nil {
			return err
		}
	}
	if p.Mask != nil && in.Format.JSON != nil && !jsonscan.IsBlank(in.Body) && maskIsEmpty(pm, p.Mask) {
		return p.deriveMask(pm, in.Body)
	}
	return nil
}

// VarValue returns path variable i of vars, percent-decoded.
func (p *Request) VarValue(vars Vars, i int) (string, error) {
	pv := &p.Vars[i]
	return Unescape(vars.RawVar(i), pv.Field.String(), pv.Multi, p.unescape)
}

// Unescape percent-decodes the raw request text of the path variable
// name: fully for one segment, per mode for several.
func Unescape(raw, name string, multi bool, mode route.UnescapeMode) (string, error) {
	var val string
	var err error
	if multi {
		val, err = route.UnescapeMulti(raw, mode)
	} else {
		val, err = route.UnescapeSegment(raw)
	}
	if err != nil {
		return "", status.Errorf(codes.InvalidArgument, "path variable %q: malformed percent-encoding in %s", name, text.Quote(raw))
	}
	return val, nil
}

func (p *Request) decodeBody(pm protoreflect.Message, in *Input) error {
	bp := &p.Body
	if bp.Kind == BodyNone {
		return nil
	}
	if bp.Raw == nil && emptyBody(in) {
		return nil
	}
	target := pm
	var leaf protoreflect.FieldDescriptor
	if bp.Kind == BodyField {
		for _, fd := range bp.Path[:len(bp.Path)-1] {
			target = target.Mutable(fd).Message()
		}
		leaf = bp.Path[len(bp.Path)-1]
	}
	if bp.Raw != nil {
		if leaf != nil {
			target = target.Mutable(leaf).Message()
		}
		target.Set(bp.Raw.ContentType, protoreflect.ValueOfString(in.Header.Get("Content-Type")))
		target.Set(bp.Raw.Data, protoreflect.ValueOfBytes(bytes.Clone(in.Body)))
		return nil
	}
	if leaf == nil {
		return unmarshal(in.Format.Codec, in.Body, pm.Interface())
	}
	if leaf.Message() != nil && !leaf.IsList() && !leaf.IsMap() {
		sub := target.NewField(leaf).Message()
		if err := unmarshal(in.Format.Codec, in.Body, sub.Interface()); err != nil {
			return err
		}
		target.Set(leaf, protoreflect.ValueOfMessage(sub))
		return nil
	}
	// A scalar, repeated or map body field: its JSON value, read by the
	// compiled decoder where it can, else as the only member of an object
	// of the enclosing message. The body must be exactly one JSON value,
	// or the wrapping would let `"x", "id": 7` set other fields.
	if p.json.TryUnmarshalField(in.Body, target.Interface(), leaf) {
		return nil
	}
	if !json.Valid(in.Body) {
		return status.Errorf(codes.InvalidArgument, "invalid request body: not a single JSON value for field %q", leaf.Name())
	}
	tmp := target.New()
	wrapped := make([]byte, 0, len(in.Body)+len(leaf.Name())+5)
	wrapped = append(wrapped, '{', '"')
	wrapped = append(wrapped, leaf.Name()...)
	wrapped = append(wrapped, '"', ':')
	wrapped = append(wrapped, in.Body...)
	wrapped = append(wrapped, '}')
	if err := unmarshal(p.json, wrapped, tmp.Interface()); err != nil {
		return err
	}
	if tmp.Has(leaf) {
		target.Set(leaf, tmp.Get(leaf))
	}
	return nil
}

// SetChunk sets only the data of a later chunk of a client stream of
// google.api.HttpBody: the bindings went with the first.
func (p *Request) SetChunk(m proto.Message, data []byte) {
	target := m.ProtoReflect()
	for _, fd := range p.Body.Path {
		target = target.Mutable(fd).Message()
	}
	target.Set(p.Body.Raw.Data, protoreflect.ValueOfBytes(bytes.Clone(data)))
}

func unmarshal(c codec.Codec, data []byte, m proto.Message) error {
	if err := c.Unmarshal(data, m); err != nil {
		return BodyError(err)
	}
	return nil
}

// BodyError is the status of a body that does not decode: the codec's own
// status, else INVALID_ARGUMENT with its cleaned message.
func BodyError(err error) error {
	if _, ok := status.FromError(err); ok {
		return err
	}
	return status.Error(codes.InvalidArgument, "invalid request body: "+text.CleanError(err))
}

// emptyBody reports whether the request has no body to decode: none at
// all, or only whitespace for JSON (PROFILE.md: a whitespace-only body is
// an empty one). For binary codecs every byte counts.
func emptyBody(in *Input) bool {
	if len(in.Body) == 0 {
		return true
	}
	return in.Format.JSON != nil && jsonscan.IsBlank(in.Body)
}

// fieldMaskPaths is the number of google.protobuf.FieldMask's paths.
const fieldMaskPaths = 1

// deriveMask sets the request's field mask from the keys of the JSON
// body, for a PATCH whose client sent no mask (or an empty one), as
// grpc-gateway does. A key that names no field is a 400 here, as in
// grpc-gateway: skipping it would turn a typo into a wider update. Binary
// bodies get no derived mask: their keys are not visible.
func (p *Request) deriveMask(pm protoreflect.Message, body []byte) error {
	paths, err := p.maskDeriver.Derive(body)
	var uk *UnknownKeyError
	if errors.As(err, &uk) {
		return status.Errorf(codes.InvalidArgument, "invalid request body: %v (the update mask is derived from the body's keys)", err)
	}
	if err != nil {
		return BodyError(err)
	}
	mv := pm.NewField(p.Mask).Message()
	if fm, ok := mv.Interface().(*fieldmaskpb.FieldMask); ok {
		fm.Paths = paths // without protoreflect's conversion of each path
	} else {
		// A remote method's mask is a dynamic message.
		list := mv.Mutable(mv.Descriptor().Fields().ByNumber(fieldMaskPaths)).List()
		for _, p := range paths {
			list.Append(protoreflect.ValueOfString(p))
		}
	}
	pm.Set(p.Mask, protoreflect.ValueOfMessage(mv))
	return nil
}

// maskIsEmpty reports whether the FieldMask field fd of m is unset or has
// no paths.
func maskIsEmpty(m protoreflect.Message, fd protoreflect.FieldDescriptor) bool {
	if !m.Has(fd) {
		return true
	}
	mask := m.Get(fd).Message()
	paths := mask.Descriptor().Fields().ByNumber(fieldMaskPaths)
	return paths == nil || mask.Get(paths).List().Len() == 0
}
