package protorest

import "github.com/protorest/protorest/internal/config"

// WithDiscardUnknownQueryParameters drops query parameters that name no
// field, as protojson's DiscardUnknown drops unknown JSON fields. By
// default they are rejected with 400 INVALID_ARGUMENT.
func WithDiscardUnknownQueryParameters() Option {
	return optionFunc(func(c *config.Config) { c.Binding.Query.IgnoreUnknown = true })
}

// WithIgnoredQueryParameters names query parameters that are always
// dropped, such as "api_key" or "access_token", whether or not they name
// a field. By default there are none.
func WithIgnoredQueryParameters(names ...string) Option {
	return optionFunc(func(c *config.Config) { c.Binding.Query.Ignored = append(c.Binding.Query.Ignored, names...) })
}

// WithLiteralPlusInQuery keeps '+' in query values as '+'. By default it
// is a space, as in HTML forms and grpc-gateway; send %2B for a plus.
func WithLiteralPlusInQuery() Option {
	return optionFunc(func(c *config.Config) { c.Binding.Query.LiteralPlus = true })
}

// WithoutFieldMaskDerivation turns off grpc-gateway's PATCH convenience.
// By default, when a PATCH rule's body names a field, the request has
// exactly one google.protobuf.FieldMask field and the client did not set
// it, the mask is derived from the keys present in the JSON body, so that
// partial updates stay partial.
func WithoutFieldMaskDerivation() Option {
	return optionFunc(func(c *config.Config) { c.Binding.DeriveMask = false })
}
