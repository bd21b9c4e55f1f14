package protorest

import (
	"net/http"

	"github.com/klauspost/compress/gzhttp"

	"github.com/protorest/protorest/internal/compress"
)

// Compression says how responses are compressed (WithCompression).
type Compression struct {
	// MinSize is the size below which a response is sent as it is; the
	// default is 1024 bytes. A stream is compressed from its first message,
	// whatever its size.
	MinSize int
}

// WithCompression compresses responses with zstd or gzip, as the
// request's Accept-Encoding prefers (zstd at equal preference), with
// klauspost/compress's gzhttp: responses of MinSize bytes or more, and
// streams, each message flushed as it is sent. Responses carry
// Vary: Accept-Encoding; a response that already has a Content-Encoding
// (a google.api.HttpBody's) is left alone. By default nothing is
// compressed.
//
// Request bodies are decoded with or without it: a method's body with
// Content-Encoding gzip or zstd is read as it decodes, the body limit
// applying to the decoded size (a body that inflates past it gets 413 and
// the method is not called); another coding, or more than one, gets 415
// with an Accept-Encoding header naming gzip and zstd. WithCompression
// also decodes the bodies of HandlePath's routes, which otherwise get the
// body as it was sent.
func WithCompression(c Compression) Option {
	minSize := c.MinSize
	if minSize <= 0 {
		minSize = gzhttp.DefaultMinSize
	}
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(minSize))
	if err != nil {
		panic("protorest: WithCompression: " + err.Error())
	}
	return optionFunc(func(cfg *config) { cfg.compress = wrap })
}

// serveDecoded serves r with h, its body decoded as its Content-Encoding
// says (compress.DecodeRequest): a custom route's, under WithCompression.
func (g *Gateway) serveDecoded(w http.ResponseWriter, r *http.Request, h http.HandlerFunc) {
	body, err := compress.DecodeRequest(w, r)
	if err != nil {
		g.env.Render.ErrorHandler(w, r, err)
		return
	}
	if body != nil {
		defer body.Close()
	}
	h(w, r)
}
