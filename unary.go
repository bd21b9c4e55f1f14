package protorest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/invoke"
	"github.com/protorest/protorest/internal/negotiate"
	"github.com/protorest/protorest/internal/route"
	"github.com/protorest/protorest/internal/text"
)

// serveUnary runs one unary call: negotiate, read the body, bind, invoke,
// render.
func (g *Gateway) serveUnary(w http.ResponseWriter, r *http.Request, b *binding, req *request) {
	defer g.recoverInternal(w, r, b)
	if b.streaming() {
		g.serveStream(w, r, b, &req.match)
		return
	}
	in, out := g.negotiate(r)

	buf, err := g.requestBody(r, b)
	defer putBuffer(buf)
	if err != nil {
		g.writeError(w, r, err)
		return
	}
	body := bufferBytes(buf)

	req.g, req.r, req.b, req.m, req.body, req.in = g, r, b, &req.match, body, g.codecs.list[in]
	var msg proto.Message
	var header, trailer metadata.MD
	if b.conn != nil {
		msg, header, trailer, err = g.invokeRemote(r, b, req)
	} else {
		msg, header, trailer, err = g.invokeLocal(r, b, req)
	}
	g.respond(w, r, b, msg, out, err, header, trailer)
}

// invokeLocal calls an in-process method through the interceptors, with
// the request's metadata, deadline, transport stream and peer.
func (g *Gateway) invokeLocal(r *http.Request, b *binding, req *request) (proto.Message, metadata.MD, metadata.MD, error) {
	ctx, cancel, stream, err := g.callContext(r, b.fullMethod)
	if cancel != nil {
		defer cancel()
	}
	if err != nil {
		return nil, nil, nil, err
	}
	resp, err := invoke.Unary(ctx, b.handler, b.srv, req.decodeFn, g.interceptor, b.fullMethod, g.cfg.panicHook)
	if err == nil && ctx.Err() != nil {
		// As on a grpc.Server: a call whose deadline passed (or whose
		// client left) fails, whatever the handler returned.
		err = status.FromContextError(ctx.Err()).Err()
	}
	header, trailer := stream.Finish()
	if err != nil {
		return nil, header, trailer, err
	}
	msg, ok := resp.(proto.Message)
	if !ok {
		return nil, header, trailer, status.Errorf(codes.Internal, "method %s returned %T, not a message", b.fullMethod, resp)
	}
	return msg, header, trailer, nil
}

// negotiate picks the request codec (Content-Type; JSON when missing or
// unknown) and the response codec (the best Accept match; the request's
// when Accept is absent; JSON when Accept names nothing supported).
func (g *Gateway) negotiate(r *http.Request) (in, out int) {
	in = negotiate.Index(g.codecs.types, r.Header.Get("Content-Type"))
	if in < 0 {
		in = 0
	}
	out = in
	if accept := headerList(r.Header, "Accept"); accept != "" {
		out = negotiate.Accept(g.codecs.types, accept, in)
		if out < 0 {
			out = 0
		}
	}
	return in, out
}

// requestBody reads the body of a one-message request, when its rule has
// one, into a pooled buffer for putBuffer; nil when it has none.
func (g *Gateway) requestBody(r *http.Request, b *binding) (*bytes.Buffer, error) {
	if b.body.kind == bodyNone {
		return nil, nil
	}
	buf := bufferPool.Get().(*bytes.Buffer)
	return buf, g.readBody(r, buf)
}

// bufferBytes returns the bytes of buf, nil for none.
func bufferBytes(buf *bytes.Buffer) []byte {
	if buf == nil {
		return nil
	}
	return buf.Bytes()
}

// maxPresize caps how much of a declared Content-Length is allocated
// before the bytes arrive.
const maxPresize = 64 << 10

// headerList returns the values of a list-valued header as one list:
// repeated header lines combine as if joined with commas (RFC 9110 §5.3).
func headerList(h http.Header, key string) string {
	vs := h.Values(key)
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return vs[0]
	}
	return strings.Join(vs, ",")
}

var bufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// keepRoom grows buf, a pooled buffer that b outgrew, so that the next
// use of it needs no growing. b itself is not taken over: it may be a
// message's own bytes (HttpBody, a backend's response). A b too large
// for the pool to keep is not worth the room.
func keepRoom(buf *bytes.Buffer, b []byte) {
	if cap(b) > buf.Cap() && cap(b) <= maxPooledBuffer {
		buf.Grow(cap(b))
	}
}

// maxPooledBuffer is the largest buffer the pool keeps.
const maxPooledBuffer = 1 << 20

// putBuffer returns buf to the pool unless it is nil or grew too large
// to keep.
func putBuffer(buf *bytes.Buffer) {
	if buf == nil || buf.Cap() > maxPooledBuffer {
		return
	}
	buf.Reset()
	bufferPool.Put(buf)
}

// readBody reads the request body into buf, never more than the limit
// plus one byte.
func (g *Gateway) readBody(r *http.Request, buf *bytes.Buffer) error {
	// A declared length only sizes the first allocation, and only up to
	// maxPresize: the client may declare more than it sends.
	if r.ContentLength > 0 {
		buf.Grow(int(min(r.ContentLength, maxPresize)))
	}
	return g.copyBody(r, buf)
}

// discardBody reads and drops the request body, within the body limit.
func (g *Gateway) discardBody(r *http.Request) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	return g.copyBody(r, io.Discard)
}

// copyBody copies the request body to dst, reading at most one byte past
// the body limit: past it, the body is too large.
func (g *Gateway) copyBody(r *http.Request, dst io.Writer) error {
	limit := g.cfg.maxBody
	if limit > 0 && r.ContentLength > limit {
		return tooLarge(limit)
	}
	var src io.Reader = r.Body
	if limit > 0 {
		src = io.LimitReader(r.Body, limit+1)
	}
	n, err := io.Copy(dst, src)
	if err != nil {
		return status.Error(codes.InvalidArgument, "reading the request body: "+text.Truncate(err.Error(), 100))
	}
	if limit > 0 && n > limit {
		return tooLarge(limit)
	}
	return nil
}

func tooLarge(limit int64) error {
	return newHTTPError(http.StatusRequestEntityTooLarge, codes.ResourceExhausted,
		"request body larger than the limit of "+formatBytes(limit))
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return itoa64(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return itoa64(n>>10) + " KiB"
	}
	return itoa64(n) + " bytes"
}

// request is one call's binding state; its decode method is the dec
// function the generated handler calls with a new request message.
type request struct {
	g    *Gateway
	r    *http.Request
	b    *binding
	m    *route.Match[*endpoint]
	body []byte
	in   Codec

	// For a pooled request (getRequest): the route match, and decode
	// bound once, so that neither costs an allocation per request.
	match    route.Match[*endpoint]
	decodeFn func(any) error
	// wireBuf holds a remote request transcoded to wire bytes
	// (wireRequest), until the call has ended.
	wireBuf *bytes.Buffer
}

var requestPool = sync.Pool{New: func() any {
	q := new(request)
	q.decodeFn = q.decode
	return q
}}

// getRequest returns a pooled request for one HTTP request; putRequest
// returns it once the call has ended (nothing may keep it: a method
// handler calls its decode function during the call only).
func getRequest() *request { return requestPool.Get().(*request) }

func putRequest(q *request) {
	putBuffer(q.wireBuf)
	*q = request{decodeFn: q.decodeFn}
	requestPool.Put(q)
}

// decode fills v, the method's request message: body first, then path
// variables (the path wins over the body), then query parameters (which
// may not touch what the path or body bound).
func (q *request) decode(v any) error {
	msg, ok := v.(proto.Message)
	if !ok {
		return status.Errorf(codes.Internal, "request type %T is not a message", v)
	}
	pm := msg.ProtoReflect()
	if err := q.decodeBody(pm); err != nil {
		return err
	}
	for i, pv := range q.b.vars {
		val, err := q.g.pathValue(q.m.RawVar(i), pv.field.String(), pv.multi)
		if err != nil {
			return err
		}
		if err := pv.field.SetPathValue(pm, val); err != nil {
			return err
		}
	}
	if raw := q.r.URL.RawQuery; raw != "" {
		if err := q.b.query.Bind(pm, raw); err != nil {
			return err
		}
	}
	if q.b.mask != nil && q.in == Codec(q.g.codecs.json) && !codecIsBlank(q.body) && maskIsEmpty(pm, q.b.mask) {
		return q.deriveMask(pm)
	}
	return nil
}

func (q *request) decodeBody(pm protoreflect.Message) error {
	bp := &q.b.body
	if bp.kind == bodyNone {
		return nil
	}
	if bp.raw == nil && q.emptyBody() {
		return nil
	}
	target := pm
	var leaf protoreflect.FieldDescriptor
	if bp.kind == bodyField {
		for _, fd := range bp.path[:len(bp.path)-1] {
			target = target.Mutable(fd).Message()
		}
		leaf = bp.path[len(bp.path)-1]
	}
	if bp.raw != nil {
		if leaf != nil {
			target = target.Mutable(leaf).Message()
		}
		target.Set(bp.raw.contentType, protoreflect.ValueOfString(q.r.Header.Get("Content-Type")))
		target.Set(bp.raw.data, protoreflect.ValueOfBytes(bytes.Clone(q.body)))
		return nil
	}
	if leaf == nil {
		return q.unmarshal(q.body, pm.Interface())
	}
	if leaf.Message() != nil && !leaf.IsList() && !leaf.IsMap() {
		sub := target.NewField(leaf).Message()
		if err := q.unmarshal(q.body, sub.Interface()); err != nil {
			return err
		}
		target.Set(leaf, protoreflect.ValueOfMessage(sub))
		return nil
	}
	// A scalar, repeated or map body field: its JSON value, read as the
	// only member of an object of the enclosing message. The body must be
	// exactly one JSON value, or the wrapping would let `"x", "id": 7`
	// set other fields.
	if !json.Valid(q.body) {
		return status.Errorf(codes.InvalidArgument, "invalid request body: not a single JSON value for field %q", leaf.Name())
	}
	tmp := target.New()
	wrapped := make([]byte, 0, len(q.body)+len(leaf.Name())+5)
	wrapped = append(wrapped, '{', '"')
	wrapped = append(wrapped, leaf.Name()...)
	wrapped = append(wrapped, '"', ':')
	wrapped = append(wrapped, q.body...)
	wrapped = append(wrapped, '}')
	if err := q.g.codecs.json.Unmarshal(wrapped, tmp.Interface()); err != nil {
		return bodyError(err)
	}
	if tmp.Has(leaf) {
		target.Set(leaf, tmp.Get(leaf))
	}
	return nil
}

func (q *request) unmarshal(data []byte, m proto.Message) error {
	if err := q.in.Unmarshal(data, m); err != nil {
		return bodyError(err)
	}
	return nil
}

func bodyError(err error) error {
	if _, ok := status.FromError(err); ok {
		return err
	}
	return status.Error(codes.InvalidArgument, "invalid request body: "+text.CleanError(err))
}

// emptyBody reports whether the request has no body to decode: none at
// all, or only whitespace for JSON (PROFILE.md: a whitespace-only body is
// an empty one). For binary codecs every byte counts.
func (q *request) emptyBody() bool {
	if len(q.body) == 0 {
		return true
	}
	return q.in == Codec(q.g.codecs.json) && codecIsBlank(q.body)
}

func codecIsBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// recoverInternal turns a panic in the gateway's own request path (a bug,
// not the method handler's panic, which invoke recovers) into a 500 Status
// and a report to the panic handler, instead of a dropped connection.
// http.ErrAbortHandler still aborts.
func (g *Gateway) recoverInternal(w http.ResponseWriter, r *http.Request, b *binding) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	g.cfg.panicHook(b.fullMethod, v, debug.Stack())
	g.writeError(w, r, status.Error(codes.Internal, "internal error in the gateway"))
}
