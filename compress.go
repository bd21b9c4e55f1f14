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
// (a google.api.HttpBody's) is left alone. Request bodies with
// Content-Encoding gzip or zstd are decoded, and the body limit applies
// to the decoded size: a body that inflates past it gets 413 and the
// method is not called. Another coding gets 415. By default nothing is
// compressed, and a request body is read as it is.
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

// serveCompressed decodes a compressed request body, then serves r; the
// response is compressed by the wrapper around it.
func (g *Gateway) serveCompressed(w http.ResponseWriter, r *http.Request) {
	body, err := compress.DecodeRequest(w, r)
	if err != nil {
		g.env.Render.ErrorHandler(w, r, err)
		return
	}
	if body != nil {
		defer body.Close()
	}
	g.serve(w, r)
}
