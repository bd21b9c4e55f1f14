package render

import (
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest/internal/text"
)

// A Hook sees a successful response before its header is written, and may
// set headers and choose the status (protorest.ResponseHook).
type Hook = func(w http.ResponseWriter, r *http.Request, resp proto.Message, header metadata.MD) error

// A MessageFinder finds the Go type of a message by name: the hooks of a
// remote method get a message of the program's generated type when it
// has one.
type MessageFinder interface {
	FindMessageByName(name protoreflect.FullName) (protoreflect.MessageType, error)
}

// runHooks calls the configured hooks, in order, on the response msg (nil
// for a stream that starts without one) and its header metadata, with the
// response's header already holding that metadata. It returns the status
// a hook chose with WriteHeader (the last one), or 0 for the plan's, and
// the Content-Type a hook set, or "" when none changed it. A remote
// method's response, wire bytes, is decoded for the hooks first: that
// costs what decoding costs, and only when hooks are configured.
func (a *Reply) runHooks(msg proto.Message, header metadata.MD) (code int, contentType string, err error) {
	if a.Plan.Wire && msg != nil {
		if msg, err = a.decodeWire(msg); err != nil {
			return 0, "", err
		}
	}
	h := a.W.Header()
	before := h.Get("Content-Type")
	hw := hookWriter{ResponseWriter: a.W}
	for _, hook := range a.Cfg.Hooks {
		if err := hook(&hw, a.R, msg, header); err != nil {
			return 0, "", err
		}
	}
	if hw.code != 0 && (hw.code < 200 || hw.code > 599) {
		return 0, "", status.Errorf(codes.Internal, "a response hook chose HTTP status %d", hw.code)
	}
	if after := h.Get("Content-Type"); after != before {
		contentType = after
	}
	return hw.code, contentType, nil
}

// decodeWire decodes a backend's response, carried as its wire bytes,
// into a message of the program's type for the output, else a dynamic one.
func (a *Reply) decodeWire(wire proto.Message) (proto.Message, error) {
	var msg proto.Message = dynamicpb.NewMessage(a.Plan.Output)
	if mt, err := a.Cfg.Types.FindMessageByName(a.Plan.Output.FullName()); err == nil {
		msg = mt.New().Interface()
	}
	if err := proto.Unmarshal(wire.ProtoReflect().GetUnknown(), msg); err != nil {
		return nil, status.Error(codes.Internal, "decoding the backend's response: "+text.CleanError(err))
	}
	return msg, nil
}

// hookWriter is the http.ResponseWriter a hook gets: its headers are the
// response's; WriteHeader chooses the status the gateway writes with the
// body; Write is refused, the body being the gateway's to write.
type hookWriter struct {
	http.ResponseWriter
	code int
}

func (w *hookWriter) WriteHeader(code int) { w.code = code }

func (w *hookWriter) Write([]byte) (int, error) { return 0, http.ErrBodyNotAllowed }

// Unwrap gives http.ResponseController the response's writer.
func (w *hookWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
