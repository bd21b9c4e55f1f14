package remote

import (
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"github.com/protorest/protorest/internal/headers"
	"github.com/protorest/protorest/internal/httperr"
)

// DefaultMaxHeaderBytes is the default of a RecvLimit's header limit: the
// metadata a backend's response header (or trailer) may carry, which the
// gateway writes as response headers (Grpc-Metadata-*, Grpc-Trailer-*).
const DefaultMaxHeaderBytes = 64 << 10

// WithMaxHeader returns l with a limit of n bytes on a response's
// metadata, as HTTP/2 counts a header list (each key and value, and 32
// bytes a field): a unary call's header and trailer metadata together,
// which become one response header; a stream's header, then its trailer.
// n <= 0 sets none.
func (l RecvLimit) WithMaxHeader(n int) RecvLimit {
	l.maxHeader = max(n, 0)
	return l
}

// CheckHeader returns the error of metadata mds over the header limit: 502
// INTERNAL, the backend's response being one the gateway will not pass
// on; nil within it. (A header list over the connection's own limit,
// grpc.WithMaxHeaderListSize, never gets here: grpc-go's server resets
// the call rather than send it, grpc-go's client fails it as INTERNAL.)
func (l RecvLimit) CheckHeader(mds ...metadata.MD) error {
	if l.maxHeader == 0 {
		return nil
	}
	n := 0
	for _, md := range mds {
		n += headers.Size(md)
	}
	if n <= l.maxHeader {
		return nil
	}
	return httperr.New(http.StatusBadGateway, codes.Internal,
		"the upstream's response metadata is larger than the limit of "+httperr.FormatBytes(int64(l.maxHeader)))
}
