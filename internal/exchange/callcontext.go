package exchange

import (
	"context"

	"google.golang.org/grpc/metadata"
)

// Context returns the call's context: the one SetContext gave, else the
// request's.
func (x *Exchange) Context() context.Context {
	if x.ctx != nil {
		return x.ctx
	}
	return x.R.Context()
}

// SetContext makes ctx, which derives from the request's, the call's
// context (a protocol's, with its deadline), without a copy of the
// request.
func (x *Exchange) SetContext(ctx context.Context) { x.ctx = ctx }

// Metadata returns the call's incoming metadata: for REST, the headers
// the policy's incoming matcher takes (headers.Policy.Metadata); for an
// RPC protocol, every header under its own name (RPCMetadata).
func (x *Exchange) Metadata() (metadata.MD, error) {
	if x.RPC {
		return x.Env.Headers.RPCMetadata(x.R)
	}
	return x.Env.Headers.Metadata(x.R)
}

// WithTimeout gives ctx the call's deadline: REST's from Grpc-Timeout
// (headers.Policy.WithTimeout), an RPC protocol's own, already on the
// request's context, bounded by the policy (Policy.Bound). The cancel
// function is nil when there is none to call.
func (x *Exchange) WithTimeout(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if x.RPC {
		ctx, cancel := x.Env.Headers.Bound(ctx, x.Binding.Streaming())
		return ctx, cancel, nil
	}
	return x.Env.Headers.WithTimeout(ctx, x.R, x.Binding.Streaming())
}
