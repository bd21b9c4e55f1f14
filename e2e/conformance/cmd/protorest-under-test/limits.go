package main

import "time"

// limits are the protorest limits this program sets in both modes, where
// the defaults do not suit the runner.
type limits struct {
	// readIdleTimeout: the runner gives up on its client, and fails every
	// case not run yet, when the client reports no result for 20 s. A
	// call protorest would leave waiting for request bytes that never
	// come (as the REST route did with a Connect full-duplex stream
	// before the protocols were served) ends at this timeout, 30 s by
	// default: well within the runner's patience here, so that such a
	// case fails alone.
	readIdleTimeout time.Duration
}
