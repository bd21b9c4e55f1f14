package protorest

import (
	"bytes"
	"errors"
	"io"
	"math"
	"net/http"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/framing"
	"github.com/protorest/protorest/internal/negotiate"
	"github.com/protorest/protorest/internal/route"
	"github.com/protorest/protorest/internal/text"
)

// maxChunk is the largest piece of a streamed google.api.HttpBody request
// sent as one message.
const maxChunk = 1 << 20

// serveStream serves a streaming method: the request messages come from
// the body (one message, bound like a unary request, or for client streams
// a sequence of them read as they arrive), the responses go out framed as
// the client asked, each flushed as it is sent.
func (g *Gateway) serveStream(w http.ResponseWriter, r *http.Request, b *binding, m *route.Match[*endpoint]) {
	in, out := g.negotiate(r)
	sink := g.newStreamWriter(w, r, b, in, out)
	var src messageSource
	if b.clientStreams {
		// Reading the body while responses go out needs full duplex on
		// HTTP/1.1 (HTTP/2 always has it).
		http.NewResponseController(w).EnableFullDuplex()
		src = g.newBodySource(r, b, m, in)
	} else {
		buf, err := g.requestBody(r, b)
		defer putBuffer(buf)
		if err == nil && b.body.kind == bodyNone {
			// Read a body the rule does not use all the same: over
			// HTTP/1.1, net/http notices a client that goes away only once
			// the body has been read.
			err = g.discardBody(r)
		}
		if err != nil {
			g.writeError(w, r, err)
			return
		}
		src = &singleSource{req: request{g: g, r: r, b: b, m: m, body: bufferBytes(buf), in: g.codecs.list[in]}}
	}
	if b.conn != nil {
		g.streamRemote(r, b, src, sink)
	} else {
		g.streamLocal(r, b, src, sink)
	}
}

// A messageSource fills request messages, one per call, and returns
// io.EOF after the last. Errors are statuses (INVALID_ARGUMENT for a bad
// message).
type messageSource interface {
	next(msg proto.Message) error
}

// singleSource is the one request message of a server stream.
type singleSource struct {
	req  request
	done bool
}

func (s *singleSource) next(msg proto.Message) error {
	if s.done {
		return io.EOF
	}
	s.done = true
	return s.req.decode(msg)
}

// bodySource reads the request messages of a client stream from the body
// as they arrive: JSON values, length-delimited binary messages, or for a
// google.api.HttpBody request, chunks of raw bytes. Every message gets the
// path and query bindings, except that later HttpBody chunks carry only
// their data (as in Envoy's transcoder).
type bodySource struct {
	req    request
	reader framing.Reader
	n      int
	err    error // the first failure, which ends the stream
}

func (g *Gateway) newBodySource(r *http.Request, b *binding, m *route.Match[*endpoint], in int) *bodySource {
	s := &bodySource{req: request{g: g, r: r, b: b, m: m, in: g.codecs.list[in]}}
	switch {
	case b.body.raw != nil:
		s.reader = framing.NewChunkReader(r.Body, maxChunk)
	case in == 0:
		s.reader = framing.NewJSONReader(r.Body, g.maxMessage())
	default:
		s.reader = framing.NewDelimitedReader(r.Body, g.maxMessage())
	}
	return s
}

// maxMessage is the size limit of one message of a client stream: the
// request body limit, which does not bound the stream as a whole.
func (g *Gateway) maxMessage() int {
	if g.cfg.maxBody <= 0 || g.cfg.maxBody > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(g.cfg.maxBody)
}

func (s *bodySource) next(msg proto.Message) error {
	if s.err != nil {
		return s.err
	}
	if s.req.b.body.kind == bodyNone {
		// A client stream whose rule has no body gets no messages.
		s.err = io.EOF
		return s.err
	}
	frame, err := s.reader.Next()
	if err != nil {
		s.err = s.readError(err)
		return s.err
	}
	s.n++
	if s.n > 1 && s.req.b.body.raw != nil {
		s.setChunk(msg.ProtoReflect(), frame)
		return nil
	}
	s.req.body = frame
	if err := s.req.decode(msg); err != nil {
		if st, ok := status.FromError(err); ok && st.Code() == codes.InvalidArgument {
			err = status.Errorf(codes.InvalidArgument, "message %d of the request stream: %s", s.n, st.Message())
		}
		s.err = err
		return err
	}
	return nil
}

// setChunk sets only the data of a later HttpBody chunk.
func (s *bodySource) setChunk(pm protoreflect.Message, frame []byte) {
	bp := &s.req.b.body
	target := pm
	for _, fd := range bp.path {
		target = target.Mutable(fd).Message()
	}
	target.Set(bp.raw.data, protoreflect.ValueOfBytes(bytes.Clone(frame)))
}

func (s *bodySource) readError(err error) error {
	if err == io.EOF {
		return io.EOF
	}
	var tl *framing.TooLargeError
	var mbe *http.MaxBytesError // a middleware's http.MaxBytesReader
	if errors.As(err, &tl) || errors.As(err, &mbe) {
		return newHTTPError(http.StatusRequestEntityTooLarge, codes.ResourceExhausted, err.Error())
	}
	if errors.Is(err, http.ErrBodyReadAfterClose) {
		return status.Error(codes.Canceled, "request body closed")
	}
	return status.Errorf(codes.InvalidArgument, "invalid request stream: message %d: %v", s.n+1, text.CleanError(err))
}

// A streamSink takes the responses of a streaming call: an HTTP response
// (streamWriter) or a WebSocket (wsSink).
type streamSink interface {
	// sendHeader commits the response before its first message.
	sendHeader(header metadata.MD) error
	// send writes one message; an error means the client is gone.
	send(msg proto.Message, header metadata.MD) error
	// finish ends the response with the call's outcome.
	finish(err error, header, trailer metadata.MD)
	// interruptRead makes a read of the request in progress fail at once,
	// and returns what undoes that for later requests.
	interruptRead() (restore func())
}

// interruptRead sets a read deadline on the connection, lifted again for
// the requests that follow on it.
func (s *streamWriter) interruptRead() func() {
	s.rc.SetReadDeadline(time.Now())
	return func() { s.rc.SetReadDeadline(time.Time{}) }
}

// streamWriter writes the responses of a stream in the framing the client
// asked for, flushing each. It is safe for concurrent use: a handler may
// send from another goroutine, and may leave one behind.
type streamWriter struct {
	g     *Gateway
	w     http.ResponseWriter
	r     *http.Request
	b     *binding
	rc    *http.ResponseController
	kind  framing.Kind
	out   int    // the codec of each message
	media string // the response's content type ("" for HttpBody: the first message's)

	// single is a client stream's one response, rendered as a unary
	// response is; only server streams are framed.
	single   bool
	response proto.Message

	mu       sync.Mutex
	started  bool
	finished bool
	seq      int
	buf      []byte
}

// Stream response types besides the codecs': SSE and NDJSON, both JSON.
var streamMedia = []string{framing.MediaSSE, framing.MediaNDJSON}

// newStreamWriter returns the writer of a streaming call's responses:
// in and out are the negotiated request and response codecs; a server
// stream negotiates its framing from Accept again, among streamTypes.
func (g *Gateway) newStreamWriter(w http.ResponseWriter, r *http.Request, b *binding, in, out int) *streamWriter {
	s := &streamWriter{g: g, w: w, r: r, b: b, rc: http.NewResponseController(w), out: in}
	if !b.serverStreams {
		s.out, s.single = out, true
		return s
	}
	if b.response.raw != nil {
		s.kind = framing.Raw
		return s
	}
	if accept := headerList(r.Header, "Accept"); accept != "" {
		s.out = negotiate.Accept(g.streamTypes, accept, in)
		switch s.out - len(g.codecs.types) {
		case 0:
			s.kind, s.out, s.media = framing.SSE, 0, framing.MediaSSE
			return s
		case 1:
			s.kind, s.out, s.media = framing.NDJSON, 0, framing.MediaNDJSON
			return s
		}
		if s.out < 0 {
			s.out = 0 // nothing supported: JSON, as for unary responses
		}
	}
	if s.out == 0 {
		s.kind, s.media = framing.Envelope, codec.MediaJSON
	} else {
		s.kind, s.media = framing.Delimited, g.codecs.types[s.out]
	}
	return s
}

// errStreamFinished is what a send gets after the call has ended.
var errStreamFinished = status.Error(codes.Canceled, "the stream has ended")

// start writes the status line and headers, with the header metadata.
// The caller holds mu.
func (s *streamWriter) start(header metadata.MD, contentType string) {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	writeMetadata(h, header, s.g.cfg.outgoingHeader, "")
	setContentType(h, contentType)
	h.Del("Content-Length")
	if s.kind == framing.SSE {
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no") // nginx would buffer the events
	}
	s.w.WriteHeader(s.b.status)
	s.rc.Flush()
}

// sendHeader starts the response before any message, as grpc.SendHeader
// does: an EventSource sees the stream open.
func (s *streamWriter) sendHeader(header metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return errStreamFinished
	}
	if !s.single && s.kind != framing.Raw { // a raw stream's type comes with its first message
		s.start(header, s.media)
	}
	return nil
}

// send writes one message. An error means the client is gone.
func (s *streamWriter) send(msg proto.Message, header metadata.MD) error {
	if s.single {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.finished || s.response != nil {
			return status.Error(codes.Internal, "a second response to a call that is not server-streaming")
		}
		s.response = msg
		return nil
	}
	body, contentType, err := s.g.encodeResponse(s.b, msg, s.out)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return errStreamFinished
	}
	if s.media != "" {
		contentType = s.media
	}
	s.start(header, contentType)
	s.seq++
	s.buf = framing.AppendMessage(s.buf[:0], s.kind, s.seq, body)
	if _, err := s.w.Write(s.buf); err != nil {
		return status.Error(codes.Canceled, "the client went away")
	}
	if err := s.rc.Flush(); err != nil {
		return status.Error(codes.Canceled, "the client went away")
	}
	return nil
}

// finish ends the response. An error before the response started is an
// ordinary error response; after, it goes in-band (envelope, SSE). The
// outcome, OK included, goes in Grpc-Status trailers when the client
// accepts trailers, and SSE ends with an "end" event. A framing with
// no in-band error, to a client that takes no trailers, is cut short so
// that the client cannot mistake it for a whole stream.
func (s *streamWriter) finish(err error, header, trailer metadata.MD) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return
	}
	s.finished = true
	if s.single {
		if err == nil && s.response == nil {
			err = status.Error(codes.Internal, "the method returned no response")
		}
		s.g.respond(s.w, s.r, s.b, s.response, s.out, err, header, trailer)
		return
	}
	if !s.started && err != nil {
		s.g.respond(s.w, s.r, s.b, nil, s.out, err, header, trailer)
		return
	}
	contentType := s.media
	if contentType == "" {
		contentType = codec.MediaOctetStream // an empty HttpBody stream
	}
	s.start(header, contentType)
	trailers := acceptsTrailers(s.r)
	st := status.New(codes.OK, "")
	if err != nil {
		st = toStatus(err)
	}
	if err == nil {
		var end bool
		if s.buf, end = framing.AppendEnd(s.buf[:0], s.kind, appendStatusJSON(nil, st, s.g.statusJSON)); end {
			s.w.Write(s.buf)
		}
	} else {
		var inBand bool
		s.buf, inBand = framing.AppendError(s.buf[:0], s.kind, appendStatusJSON(nil, st, s.g.statusJSON))
		if inBand {
			s.w.Write(s.buf)
		}
		if !trailers && !inBand {
			s.rc.Flush()
			panic(http.ErrAbortHandler)
		}
	}
	if trailers {
		h := s.w.Header()
		h.Set(http.TrailerPrefix+"Grpc-Status", itoa64(int64(st.Code())))
		h.Set(http.TrailerPrefix+"Grpc-Message", st.Message())
		writeMetadata(h, trailer, s.g.cfg.outgoingTrailer, http.TrailerPrefix)
	}
}

// interruptible is a request stream whose read in progress can be cut
// short when the handler is about to return: the body may not be read
// after that. Only a read in progress is cut.
type interruptible struct {
	r framing.Reader

	mu      sync.Mutex
	reading bool
	stopped bool
}

var errStopped = status.Error(codes.Canceled, "the call has ended")

func (b *interruptible) Next() ([]byte, error) {
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return nil, errStopped
	}
	b.reading = true
	b.mu.Unlock()
	data, err := b.r.Next()
	b.mu.Lock()
	b.reading = false
	b.mu.Unlock()
	return data, err
}

// cut stops reading and calls wait, which returns once the reader has:
// at once if no read is in progress, else after interrupt ends it.
func (b *interruptible) cut(interrupt func() (restore func()), wait func()) {
	b.mu.Lock()
	b.stopped = true
	reading := b.reading
	b.mu.Unlock()
	if reading {
		defer interrupt()()
	}
	wait()
}
