package negotiate

import (
	"strings"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/framing"
)

// A Format is a media type a gateway reads and writes, with the codec
// that speaks it. Formats are compared by identity: a request's and a
// response's are pointers into one Formats table.
type Format struct {
	Media string
	Codec codec.Codec
	// JSON is the built-in JSON codec when it is this format's codec: it
	// appends into pooled buffers and transcodes to and from wire bytes.
	JSON *codec.JSON
	// Proto reports that the built-in binary codec is this format's codec.
	Proto bool

	index int // in Formats.types: the preference of Accept wildcards
}

// A Framing is how a server stream's responses go out: each message in
// Format, framed as Kind, under the response media type Media.
type Framing struct {
	Kind   framing.Kind
	Format *Format
	Media  string
}

// Formats is a gateway's table of formats, built once. JSON is
// application/json, whatever its codec: the fallback for a request
// without a known Content-Type and for an Accept that names nothing
// supported. Binary is application/proto.
type Formats struct {
	JSON   *Format
	Binary *Format

	list  []*Format
	types []string // media types, as list

	streams     []Framing // a server stream's choices: one per format, then SSE and NDJSON
	streamTypes []string
}

// A NamedCodec is a codec for a media type (protorest.WithCodec).
type NamedCodec struct {
	Media string
	Codec codec.Codec
}

// NewFormats returns the table: application/json with json, the binary
// media types with the built-in binary codec, then extra, each replacing
// a format of the same media type.
func NewFormats(json *codec.JSON, extra []NamedCodec) *Formats {
	t := &Formats{}
	add := func(media string, c codec.Codec) {
		media = strings.ToLower(media)
		f := &Format{Media: media, Codec: c}
		f.JSON, _ = c.(*codec.JSON)
		if f.JSON != json {
			f.JSON = nil // a user's JSON codec is a codec like any other
		}
		_, f.Proto = c.(codec.Proto)
		for i, t0 := range t.types {
			if t0 == media {
				f.index = i
				t.list[i] = f
				return
			}
		}
		f.index = len(t.list)
		t.list = append(t.list, f)
		t.types = append(t.types, media)
	}
	add(codec.MediaJSON, json)
	for _, mt := range []string{codec.MediaProto, codec.MediaProtobuf, codec.MediaXProtobuf} {
		add(mt, codec.Proto{})
	}
	for _, nc := range extra {
		add(nc.Media, nc.Codec)
	}
	t.JSON, t.Binary = t.list[0], t.list[1]
	for _, f := range t.list {
		fr := Framing{Kind: framing.Delimited, Format: f, Media: f.Media}
		if f == t.JSON {
			fr.Kind, fr.Media = framing.Envelope, codec.MediaJSON
		}
		t.streams = append(t.streams, fr)
		t.streamTypes = append(t.streamTypes, f.Media)
	}
	t.streams = append(t.streams,
		Framing{Kind: framing.SSE, Format: t.JSON, Media: framing.MediaSSE},
		Framing{Kind: framing.NDJSON, Format: t.JSON, Media: framing.MediaNDJSON})
	t.streamTypes = append(t.streamTypes, framing.MediaSSE, framing.MediaNDJSON)
	return t
}

// Request returns the format of a request body by its Content-Type: JSON
// when it is missing or unknown (curl -d sends a form type).
func (t *Formats) Request(contentType string) *Format {
	if i := Index(t.types, contentType); i >= 0 {
		return t.list[i]
	}
	return t.JSON
}

// Response returns the format of a response: the best Accept match, the
// request's format when Accept is absent, JSON when Accept names nothing
// supported.
func (t *Formats) Response(accept string, in *Format) *Format {
	if accept == "" {
		return in
	}
	if i := Accept(t.types, accept, in.index); i >= 0 {
		return t.list[i]
	}
	return t.JSON
}

// Stream returns the framing of a server stream's responses: the best
// Accept match among the formats, SSE and NDJSON; the request's format
// when Accept is absent; JSON's envelope when Accept names nothing
// supported.
func (t *Formats) Stream(accept string, in *Format) *Framing {
	i := in.index
	if accept != "" {
		i = max(Accept(t.streamTypes, accept, in.index), 0)
	}
	return &t.streams[i]
}
