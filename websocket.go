package protorest

import "github.com/protorest/protorest/internal/config"

// WithWebSocketOrigins lets pages from other origins open WebSockets to
// streaming methods: host patterns as in path.Match ("*.example.com"), or
// with a scheme ("https://app.example.com"). By default only pages from
// the request's own host may, which is what keeps a WebSocket from being
// opened by any site a user visits (cross-site WebSocket hijacking).
func WithWebSocketOrigins(patterns ...string) Option {
	return optionFunc(func(c *config.Config) { c.WebSocketOrigins = append(c.WebSocketOrigins, patterns...) })
}
