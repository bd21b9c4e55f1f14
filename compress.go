package protorest

import "github.com/protorest/protorest/internal/config"

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
// (a google.api.HttpBody's) is left alone. It also decodes gzip and zstd
// request bodies for HandlePath's routes (methods' bodies are decoded
// without it; another coding gets 415). By default nothing is compressed.
func WithCompression(c Compression) Option {
	return optionFunc(func(cfg *config.Config) { cfg.Compression = &config.Compression{MinSize: c.MinSize} })
}
