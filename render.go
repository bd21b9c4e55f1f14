package protorest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/jsonscan"
	"github.com/protorest/protorest/internal/text"
)

// respond writes the outcome of a call with one response: the header
// metadata, then msg rendered with codec out (render) or, when err is
// set, err (writeErrorWithTrailers).
func (g *Gateway) respond(w http.ResponseWriter, r *http.Request, b *binding, msg proto.Message, out int, err error, header, trailer metadata.MD) {
	writeMetadata(w.Header(), header, g.cfg.outgoingHeader, "")
	if err != nil {
		g.writeErrorWithTrailers(w, r, err, trailer)
		return
	}
	g.render(w, r, b, msg, out, trailer)
}

// render writes a successful response: the message (or its response_body
// field) in the negotiated codec, raw bytes for google.api.HttpBody, the
// method's success status, and trailer metadata as HTTP trailers when the
// client asked for them with "TE: trailers".
func (g *Gateway) render(w http.ResponseWriter, r *http.Request, b *binding, msg proto.Message, out int, trailer metadata.MD) {
	buf := bufferPool.Get().(*bytes.Buffer)
	defer putBuffer(buf)
	body, contentType, err := g.appendResponse(buf.AvailableBuffer(), b, msg, out)
	if err != nil {
		g.writeError(w, r, err)
		return
	}
	keepRoom(buf, body)
	g.writeBody(w, r, b, body, contentType, trailer)
}

// writeBody writes a successful response's status, headers, body and
// trailers.
func (g *Gateway) writeBody(w http.ResponseWriter, r *http.Request, b *binding, body []byte, contentType string, trailer metadata.MD) {
	h := w.Header()
	setContentType(h, contentType)
	sendTrailers := len(trailer) > 0 && acceptsTrailers(r)
	if sendTrailers {
		// Declared before the header is written, or an HTTP/1.1 server
		// sends a short response with a Content-Length and no trailers.
		declareTrailers(h, trailer, g.cfg.outgoingTrailer)
	} else if b.status != http.StatusNoContent {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(b.status)
	if b.status != http.StatusNoContent && r.Method != http.MethodHead {
		w.Write(body)
	}
	if sendTrailers {
		writeMetadata(h, trailer, g.cfg.outgoingTrailer, "")
	}
}

// encodeResponse encodes a response message (or its response_body field)
// with codec out, or takes the raw bytes and content type of a
// google.api.HttpBody. The bytes may be the message's own (HttpBody).
func (g *Gateway) encodeResponse(b *binding, msg proto.Message, out int) (body []byte, contentType string, err error) {
	return g.appendResponse(nil, b, msg, out)
}

// appendResponse is encodeResponse appending to dst where it can (the
// built-in JSON codec), so that a pooled buffer serves. A remote method's
// response carries the backend's wire bytes (newWireResponse).
func (g *Gateway) appendResponse(dst []byte, b *binding, msg proto.Message, out int) (body []byte, contentType string, err error) {
	if b.conn != nil {
		return g.appendWire(dst, b, msg.ProtoReflect().GetUnknown(), out)
	}
	return g.appendMessage(dst, b, msg, out)
}

// appendMessage encodes msg, a message of the method's output type.
func (g *Gateway) appendMessage(dst []byte, b *binding, msg proto.Message, out int) (body []byte, contentType string, err error) {
	pm := msg.ProtoReflect()
	contentType = g.codecs.types[out]
	target := pm
	if b.response.path != nil && b.response.isMessage {
		target = pm.Get(b.response.path[0]).Message()
	}
	switch {
	case b.response.raw != nil:
		contentType = target.Get(b.response.raw.contentType).String()
		if contentType == "" {
			contentType = codec.MediaOctetStream
		}
		body = target.Get(b.response.raw.data).Bytes()
	case b.response.path == nil:
		body, err = g.marshal(dst, out, msg)
	case b.response.isMessage:
		body, err = g.marshal(dst, out, target.Interface())
	default:
		contentType = codec.MediaJSON
		body, err = g.marshalFieldJSON(pm, b.response.path[0])
	}
	if err != nil {
		return nil, "", status.Error(codes.Internal, "encoding the response: "+text.CleanError(err))
	}
	return body, contentType, nil
}

// marshal encodes msg with codec out, appending to dst for the built-in
// JSON and binary codecs.
func (g *Gateway) marshal(dst []byte, out int, msg proto.Message) ([]byte, error) {
	switch c := g.codecs.list[out]; c {
	case Codec(g.codecs.json):
		return g.codecs.json.AppendMarshal(dst, msg)
	case Codec(codec.Proto{}):
		return codec.Proto{}.AppendMarshal(dst, msg)
	default:
		return c.Marshal(msg)
	}
}

// headerJSON is the Content-Type of JSON responses, shared: net/http only
// reads header values, and a capacity of 1 makes an append copy it.
var headerJSON = []string{codec.MediaJSON}

// setContentType sets the Content-Type, without allocating for JSON.
func setContentType(h http.Header, contentType string) {
	if contentType == codec.MediaJSON {
		h["Content-Type"] = headerJSON[:1:1]
		return
	}
	h.Set("Content-Type", contentType)
}

// marshalFieldJSON renders one non-message field of m as its own JSON
// value (response_body naming a repeated, map or scalar field).
func (g *Gateway) marshalFieldJSON(m protoreflect.Message, fd protoreflect.FieldDescriptor) ([]byte, error) {
	tmp := m.New()
	if m.Has(fd) {
		tmp.Set(fd, m.Get(fd))
	}
	opts := g.codecs.json.MarshalOptions
	opts.EmitUnpopulated = true
	whole, err := opts.Marshal(tmp.Interface())
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(jsonscan.Compact(whole), &fields); err != nil {
		return nil, err
	}
	key := fd.JSONName()
	if opts.UseProtoNames {
		key = string(fd.Name())
	}
	return fields[key], nil
}

func declareTrailers(h http.Header, md metadata.MD, matcher HeaderMatcher) {
	for k := range md {
		if name, ok := matcher(k); ok {
			h.Add("Trailer", http.CanonicalHeaderKey(name))
		}
	}
}

func acceptsTrailers(r *http.Request) bool {
	for _, v := range r.Header.Values("Te") {
		for part := range strings.SplitSeq(v, ",") {
			if t, _, _ := strings.Cut(part, ";"); strings.EqualFold(strings.TrimSpace(t), "trailers") {
				return true
			}
		}
	}
	return false
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
