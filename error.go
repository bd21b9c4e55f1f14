package protorest

import (
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/httperr"
)

// An ErrorHandler writes err as the response to r. err always carries a
// gRPC status: status.Convert(err) gives its code, message and details,
// and HTTPStatus(err) the HTTP status the gateway chose.
type ErrorHandler func(w http.ResponseWriter, r *http.Request, err error)

// HTTPStatusFromCode maps a gRPC code to an HTTP status, per
// google/rpc/code.proto (and grpc-gateway). Unknown codes map to 500.
func HTTPStatusFromCode(c codes.Code) int { return httperr.FromCode(c) }

// HTTPStatus returns the HTTP status for err: the gateway's own choice for
// the errors it makes (404 no route, 405 wrong method, 413 body too large),
// else HTTPStatusFromCode of its gRPC code.
func HTTPStatus(err error) int { return httperr.Status(err) }

// DefaultErrorHandler writes err as a google.rpc.Status JSON body,
// {"code":5,"message":"…","details":[…]}, with the status HTTPStatus(err).
// Details are resolved with protoregistry.GlobalTypes (a Gateway without
// WithErrorHandler uses its WithTypes instead); those whose types cannot
// be resolved are written with their "@type" and base64 "value". A 401
// also gets a WWW-Authenticate header with the message, as grpc-gateway
// does.
func DefaultErrorHandler(w http.ResponseWriter, r *http.Request, err error) {
	httperr.Write(w, err, protojson.MarshalOptions{})
}

// WithErrorHandler replaces the function that writes every error response:
// errors from methods, and the gateway's own (no route, wrong method, bad
// input, limits). The default is DefaultErrorHandler, with the gateway's
// types (WithTypes).
func WithErrorHandler(h ErrorHandler) Option {
	return optionFunc(func(c *config.Config) { c.Errors.Handler = h })
}

// WithRoutingErrorHandler sets the function that answers a request no
// route matched, before any method is chosen: 404 NOT_FOUND, 405 (code
// UNIMPLEMENTED, with the Allow header already set), and 503 UNAVAILABLE
// while a pending backend's routes are not loaded (WithPending).
// HTTPStatus(err) tells them apart. It is grpc-gateway's
// WithRoutingErrorHandler, given the error instead of the HTTP status.
// The default is the gateway's error handler (WithErrorHandler).
func WithRoutingErrorHandler(h ErrorHandler) Option {
	return optionFunc(func(c *config.Config) { c.Errors.RoutingHandler = h })
}

// WithStreamErrorHandler sets the status of an error that ends a server
// stream, as grpc-gateway's WithStreamErrorHandler does, given the
// request: once the response has started, the in-band error record (or
// SSE error event), the Grpc-Status and Grpc-Message trailers and a
// WebSocket's close frame carry it; before, the error handler's response
// does. It may hide a message or add details; nil keeps the error's own
// status. The gateway's own errors with an HTTP status of their own (a
// limit) do not reach it. By default the status is the error's own.
func WithStreamErrorHandler(h func(r *http.Request, err error) *status.Status) Option {
	return optionFunc(func(c *config.Config) { c.Errors.StreamError = h })
}

// WithPanicHook is called with the method, the value and the stack of
// every panic the gateway recovers from a method handler or from its own
// request path (the client gets 500 INTERNAL), and with the options'
// mistakes at a misconfigured gateway's first request. By default they
// are logged with log/slog.
func WithPanicHook(h func(method string, value any, stack []byte)) Option {
	return optionFunc(func(c *config.Config) { c.Errors.PanicHook = h })
}
