package protorest

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/httprule"
	"github.com/protorest/protorest/internal/route"
)

// binding is one HTTP rule of one method, with every field path resolved:
// the per-request path only runs this plan.
type binding struct {
	*invoker
	input, output protoreflect.MessageDescriptor
	vars          []pathVar
	body          bodyPlan
	query         *bind.Query
	response      responsePlan
	status        int
	mask          protoreflect.FieldDescriptor // PATCH field-mask derivation target, or nil
	maskDeriver   *bind.MaskDeriver            // reads the body's keys, when mask is set
	wire          *wirePlan                    // remote: a binary body goes on as it is (remote.go), or nil

	// For a streaming method, built here rather than per call: what its
	// stream interceptors are told (in-process), and the stream it opens
	// on the backend (remote). Neither is written to once built.
	streamInfo grpc.StreamServerInfo
	streamDesc grpc.StreamDesc
}

type pathVar struct {
	field *bind.Field
	multi bool // covers several segments, or "**"
}

type bodyKind uint8

const (
	bodyNone  bodyKind = iota // the rule has no body: a request body is ignored
	bodyAll                   // body: "*"
	bodyField                 // body: "field.path"
)

type bodyPlan struct {
	kind bodyKind
	path []protoreflect.FieldDescriptor // for bodyField
	raw  *httpBodyFields                // the target is google.api.HttpBody
}

type responsePlan struct {
	path      []protoreflect.FieldDescriptor // response_body, or nil for the whole message
	isMessage bool                           // response_body names a singular message field
	raw       *httpBodyFields                // the rendered message is google.api.HttpBody
}

// httpBodyFields are the fields of google.api.HttpBody, found by number
// so that any descriptor of it (generated or dynamic) works.
type httpBodyFields struct {
	contentType, data protoreflect.FieldDescriptor
}

func httpBodyOf(md protoreflect.MessageDescriptor) *httpBodyFields {
	if md == nil || !codec.IsHTTPBody(string(md.FullName())) {
		return nil
	}
	f := &httpBodyFields{contentType: md.Fields().ByNumber(1), data: md.Fields().ByNumber(2)}
	if f.contentType == nil || f.data == nil {
		return nil
	}
	return f
}

func (g *Gateway) newBinding(md protoreflect.MethodDescriptor, r *annotations.HttpRule, target *invoker) (*route.Entry[*endpoint], error) {
	method, path := rulePattern(r)
	if method == "" {
		return nil, errors.New("the rule has no pattern")
	}
	if path == "" {
		return nil, errors.New("empty path template")
	}
	tmpl, err := httprule.Parse(path)
	if err != nil {
		return nil, err
	}
	b := &binding{invoker: target, input: md.Input(), output: md.Output(), status: 200}
	b.streamInfo = grpc.StreamServerInfo{FullMethod: target.fullMethod, IsClientStream: target.clientStreams, IsServerStream: target.serverStreams}
	b.streamDesc = grpc.StreamDesc{ServerStreams: target.serverStreams, ClientStreams: target.clientStreams}
	if code, ok := g.cfg.successStatus[target.fullMethod]; ok {
		b.status = code
	}

	var bound []*bind.Field
	for _, v := range tmpl.Variables {
		f, err := bind.ResolveField(b.input, v.FieldPath)
		if err != nil {
			return nil, fmt.Errorf("path variable {%s}: %w", strings.Join(v.FieldPath, "."), err)
		}
		b.vars = append(b.vars, pathVar{field: f, multi: isMultiSegment(tmpl, v)})
		bound = append(bound, f)
	}

	switch body := r.GetBody(); body {
	case "":
	case "*":
		b.body = bodyPlan{kind: bodyAll, raw: httpBodyOf(b.input)}
	default:
		fds, err := resolveFields(b.input, body)
		if err != nil {
			return nil, fmt.Errorf("body %q: %w", body, err)
		}
		b.body = bodyPlan{kind: bodyField, path: fds}
		last := fds[len(fds)-1]
		if !last.IsList() && !last.IsMap() {
			b.body.raw = httpBodyOf(last.Message())
		}
		bf, err := bind.BoundField(b.input, fds)
		if err != nil {
			return nil, fmt.Errorf("body %q: %w", body, err)
		}
		bound = append(bound, bf)
	}

	if rb := r.GetResponseBody(); rb != "" {
		fds, err := resolveFields(b.output, rb)
		if err != nil {
			return nil, fmt.Errorf("response_body %q: %w", rb, err)
		}
		if len(fds) != 1 {
			return nil, fmt.Errorf("response_body %q: must name a top-level field", rb)
		}
		b.response.path = fds
		if last := fds[0]; last.Message() != nil && !last.IsList() && !last.IsMap() {
			b.response.isMessage = true
			b.response.raw = httpBodyOf(last.Message())
		}
	} else {
		b.response.raw = httpBodyOf(b.output)
	}

	b.query = bind.NewQuery(b.input, bound, b.body.kind == bodyAll, bind.QueryOptions{
		IgnoreUnknown: g.cfg.ignoreUnknown,
		Ignored:       g.cfg.ignoredQuery,
		LiteralPlus:   g.cfg.literalPlus,
	})
	if g.cfg.deriveMask && method == "PATCH" && b.body.kind == bodyField {
		if bodyMsg := b.body.path[len(b.body.path)-1].Message(); bodyMsg != nil && b.body.raw == nil {
			b.mask = soleFieldMask(b.input)
			b.maskDeriver = bind.NewMaskDeriver(bodyMsg)
			b.maskDeriver.RejectUnknown = true
		}
	}
	return &route.Entry[*endpoint]{
		Method:   method,
		Template: tmpl,
		Name:     methodName(md),
		Value:    &endpoint{binding: b},
	}, nil
}

// resolveFields resolves a dotted field path for body or response_body:
// every component but the last must be a singular message field; the last
// may be any field. Components are proto names or JSON names.
func resolveFields(md protoreflect.MessageDescriptor, path string) ([]protoreflect.FieldDescriptor, error) {
	var fds []protoreflect.FieldDescriptor
	cur := md
	for i, name := range strings.Split(path, ".") {
		if cur == nil {
			return nil, fmt.Errorf("%q is not a message field", strings.Join(strings.Split(path, ".")[:i], "."))
		}
		fd := cur.Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			fd = cur.Fields().ByJSONName(name)
		}
		if fd == nil {
			return nil, fmt.Errorf("no field %q in message %s", name, cur.FullName())
		}
		fds = append(fds, fd)
		cur = nil
		if fd.Message() != nil && !fd.IsList() && !fd.IsMap() {
			cur = fd.Message()
		}
	}
	return fds, nil
}

// soleFieldMask returns the only top-level google.protobuf.FieldMask field
// of md, or nil when there is none or more than one.
func soleFieldMask(md protoreflect.MessageDescriptor) protoreflect.FieldDescriptor {
	var found protoreflect.FieldDescriptor
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Message() != nil && fd.Message().FullName() == "google.protobuf.FieldMask" && !fd.IsList() {
			if found != nil {
				return nil
			}
			found = fd
		}
	}
	return found
}
