package openapi

import (
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/framing"
	"github.com/protorest/protorest/internal/render"
)

const (
	mediaNDJSON = framing.MediaNDJSON
	mediaSSE    = framing.MediaSSE
)

// streamContent returns the content of a server stream's response, one
// entry per framing the gateway negotiates by Accept, first the one a
// browser shows as it comes: Server-Sent Events, a message per event;
// then NDJSON, the bare messages one per line; then grpc-gateway's
// envelope under JSON, {"result":…} per line and a last {"error":…} line
// if the stream fails. Swagger UI's Try-it asks for the first, and
// cannot parse a sequence of JSON values as JSON. Each schema is that of
// one event or line (OpenAPI 3.1 has no keyword for the items of a
// stream). A stream of google.api.HttpBody is its data, concatenated.
func (b *builder) streamContent(resp *render.Response) *MediaTypes {
	if resp.Raw != nil {
		return oneMediaType(mediaAny, nil)
	}
	msg := b.responseSchema(resp)
	envelope := &Properties{}
	envelope.Add("result", msg)
	envelope.Add("error", b.status())
	content := oneMediaType(mediaSSE, &Schema{Type: "string", Description: `Events: "data:" a message per event, then an "end" event, or an "error" event with a google.rpc.Status.`})
	content.Add(mediaNDJSON, &MediaType{Schema: msg})
	content.Add(mediaJSON, &MediaType{Schema: &Schema{Type: "object", Description: "One line of the stream.", Properties: envelope}})
	return content
}

// streamingNote explains, in an operation's description, how its streams
// travel.
func streamingNote(md protoreflect.MethodDescriptor) string {
	var note string
	switch {
	case md.IsStreamingClient() && md.IsStreamingServer():
		note = "Bidirectional stream: full duplex over HTTP/2; the responses go out as they come, one per line (or per event)."
	case md.IsStreamingClient():
		note = "Client stream: the request body is a sequence of messages, read as it arrives."
	default:
		note = "Server stream: each response message goes out as it comes, one per line (or per event), in the framing Accept asks for."
	}
	return note + " The route also accepts a WebSocket handshake: one message per WebSocket message, an empty one ending the client's side."
}

// statusDescriptor is google.rpc.Status, the body of every error.
func statusDescriptor() protoreflect.MessageDescriptor {
	return status.File_google_rpc_status_proto.Messages().ByName("Status")
}
