package edge

import (
	"net/http"

	"github.com/klauspost/compress/gzhttp"

	"github.com/protorest/protorest/internal/compress"
	"github.com/protorest/protorest/internal/httperr"
)

// Compress compresses responses with zstd or gzip, as the request's
// Accept-Encoding prefers, with gzhttp: responses of minSize bytes or
// more (0 is gzhttp's default, 1 KiB), and streams, message by message.
// It returns gzhttp's error for a setting it refuses.
func Compress(minSize int) (Layer, error) {
	if minSize <= 0 {
		minSize = gzhttp.DefaultMinSize
	}
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(minSize))
	if err != nil {
		return nil, err
	}
	return func(next http.Handler) http.Handler { return wrap(next) }, nil
}

// DecodeRequest has next read the request body as its Content-Encoding
// (gzip, zstd) decodes it (compress.DecodeRequest); another coding, or
// more than one, is a 415 through fail.
func DecodeRequest(fail httperr.Handler) Layer {
	return func(next http.Handler) http.Handler { return &decoder{fail, next} }
}

type decoder struct {
	fail httperr.Handler
	next http.Handler
}

func (d *decoder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := compress.DecodeRequest(w, r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if body != nil {
		defer body.Close()
	}
	d.next.ServeHTTP(w, r)
}
