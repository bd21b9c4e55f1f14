package protorest

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/config"
)

// A ResponseHook sees a method's successful response before its status
// line and headers are written, as grpc-gateway's forward-response options
// do: it may set headers (cookies, Location, cache policy, and the
// Content-Type of a response with one message; Content-Length and a
// stream's Content-Type stay the gateway's) and choose the status with
// w.WriteHeader (a redirect, 201, 304); the gateway then writes the body
// as usual (none for 204 and 304). A status outside 200–599 is an error.
// w's header already holds the header metadata as Grpc-Metadata-*
// headers, which the hook may delete; header is that metadata. w.Write is
// refused: the body is the gateway's. An error is answered instead of the
// response, through the error handler.
//
// resp is the method's response. A remote method's is decoded for the
// hooks, into the program's generated type when it has one for the
// method's output (else a dynamicpb message); that decoding, which the
// gateway otherwise skips, is the cost of a hook on remote calls. A server
// stream calls the hooks once, as its response starts: with its first
// message, or nil when it starts without one (grpc.SendHeader, or no
// message at all). WebSocket streams do not call them: their response is
// the handshake.
type ResponseHook func(w http.ResponseWriter, r *http.Request, resp proto.Message, header metadata.MD) error

// WithResponseHook adds a hook that sees every successful response of a
// method (not of custom routes) before it is written; hooks run in the
// order added. grpc-gateway's WithForwardResponseOption, with the request
// and the header metadata as arguments. By default there are none.
func WithResponseHook(h ResponseHook) Option {
	return optionFunc(func(c *config.Config) { c.Response.Hooks = append(c.Response.Hooks, h) })
}

// WithSuccessStatus sets the HTTP status of a successful response of one
// method, named "pkg.Service/Method" (a leading "/" is allowed), e.g. 201
// for a create or 204 for a delete (204 sends no body). The default is 200.
// A code that is not a 2xx status is an error (see Option); registering
// the service fails if it has no such method.
func WithSuccessStatus(method string, code int) Option {
	return optionFunc(func(c *config.Config) {
		if code < 200 || code > 299 {
			c.Errs = append(c.Errs, errors.New("protorest: WithSuccessStatus("+method+"): "+strconv.Itoa(code)+" is not a success status (2xx)"))
			return
		}
		if c.Response.SuccessStatus == nil {
			c.Response.SuccessStatus = map[string]int{}
		}
		c.Response.SuccessStatus["/"+strings.TrimPrefix(method, "/")] = code
	})
}
