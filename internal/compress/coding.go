package compress

import (
	"net/http"
	"strings"

	"google.golang.org/grpc/codes"

	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/text"
)

// A coding is a content coding the gateway decodes.
type coding uint8

const (
	identity coding = iota // no coding
	gzipCoding
	zstdCoding
)

func (c coding) String() string {
	switch c {
	case gzipCoding:
		return "gzip"
	case zstdCoding:
		return "zstd"
	}
	return "identity"
}

// parseCoding returns the coding the Content-Encoding header lines vs name
// (RFC 9110 §8.4): gzip (or its alias x-gzip), zstd, or identity for none.
// identity and empty list elements are no coding. A coding it does not
// decode, and more than one coding, are a 415 error (errCoding): a client
// sends one coding, and a chain of them would only multiply the work a
// small body may ask for.
func parseCoding(vs []string) (coding, error) {
	found := identity
	for _, v := range vs {
		for v != "" {
			var elem string
			elem, v, _ = strings.Cut(v, ",")
			elem = strings.Trim(elem, " \t")
			var c coding
			switch {
			case elem == "" || strings.EqualFold(elem, "identity"):
				continue
			case strings.EqualFold(elem, "gzip") || strings.EqualFold(elem, "x-gzip"):
				c = gzipCoding
			case strings.EqualFold(elem, "zstd"):
				c = zstdCoding
			default:
				return identity, errCoding("request Content-Encoding " + text.Quote(elem) + " not supported: send " + Encodings + " or none")
			}
			if found != identity {
				return identity, errCoding("request body in more than one content coding (" + found.String() + ", then " + c.String() + "): send one of " + Encodings)
			}
			found = c
		}
	}
	return found, nil
}

// errCoding is the error of a Content-Encoding the gateway does not
// decode: 415 UNIMPLEMENTED, as for another request the gateway cannot
// serve.
func errCoding(msg string) error {
	return httperr.New(http.StatusUnsupportedMediaType, codes.Unimplemented, msg)
}
