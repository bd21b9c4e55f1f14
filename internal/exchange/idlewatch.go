package exchange

import (
	"context"

	"github.com/protorest/protorest/internal/timeouts"
)

// WatchIdle starts the stream idle timeout of x's call, which cancel
// ends (timeouts.WatchIdle); Outcome stops it. It returns nil (a watch
// that does nothing) when the gateway has no stream idle timeout.
func (x *Exchange) WatchIdle(cancel context.CancelCauseFunc) *timeouts.IdleWatch {
	x.idle = timeouts.WatchIdle(x.Env.StreamIdleTimeout, cancel)
	return x.idle
}
