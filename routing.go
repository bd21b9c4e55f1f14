package protorest

import (
	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/route"
)

// PathUnescaping says how a path variable that covers several segments
// ({name=files/**}, {name=shelves/*/books/*}) is percent-decoded. A
// variable of one segment is always fully decoded, %2F included.
type PathUnescaping = route.UnescapeMode

const (
	// UnescapeAllExceptSlash decodes everything but %2F, as
	// google/api/http.proto specifies. The default.
	UnescapeAllExceptSlash = route.UnescapeAllExceptSlash
	// UnescapeAllExceptReserved keeps the RFC 6570 reserved characters
	// encoded, as Envoy and ESP do.
	UnescapeAllExceptReserved = route.UnescapeAllExceptReserved
	// UnescapeAll decodes everything, %2F included (grpc-gateway's Legacy
	// mode, minus its routing on the decoded path).
	UnescapeAll = route.UnescapeAll
)

// WithPathUnescaping sets how multi-segment path variables are decoded.
// The default is UnescapeAllExceptSlash.
func WithPathUnescaping(mode PathUnescaping) Option {
	return optionFunc(func(c *config.Config) { c.Binding.Unescape = mode })
}

// WithoutEncodedSlashFallback keeps %2F in request paths as data, always.
// By default a path that matches no route for its method as written, but
// holds %2F, is routed once more with %2F decoded to "/", as grpc-gateway
// routes every path (its generated OpenAPI clients escape the slashes of
// path parameters); the variable then gets the decoded value. The
// fallback never changes the route of a path that matches as written
// (docs/reference.md, Routing, says why it is safe to keep on).
func WithoutEncodedSlashFallback() Option {
	return optionFunc(func(c *config.Config) { c.Routing.SlashFallback = false })
}

// WithStrictTrailingSlash makes a trailing slash significant. By default
// trailing slashes are ignored: /v1/books/ is /v1/books.
func WithStrictTrailingSlash() Option {
	return optionFunc(func(c *config.Config) { c.Routing.StrictSlash = true })
}
