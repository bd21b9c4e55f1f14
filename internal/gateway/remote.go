package gateway

import (
	"context"

	"google.golang.org/grpc"

	"github.com/protorest/protorest/internal/remote"
)

// RegisterRemote routes the methods of the backend over conn, loaded as
// o says (remote.Backends.Register); its error may be the options'
// mistakes.
func (g *Gateway) RegisterRemote(ctx context.Context, conn grpc.ClientConnInterface, o remote.Options) error {
	if g.err != nil {
		return g.err
	}
	return g.remotes.Register(ctx, conn, o)
}

// Reload loads every backend again (remote.Backends.Reload).
func (g *Gateway) Reload(ctx context.Context) error { return g.remotes.Reload(ctx) }
