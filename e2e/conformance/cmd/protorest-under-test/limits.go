package main

import "time"

// limits are the protorest limits this program sets in both modes, where
// the defaults do not suit the runner.
type limits struct {
	// readIdleTimeout: the runner gives up on its client, and fails every
	// case not run yet, when the client reports no result for 20 s. A
	// call protorest leaves waiting for request bytes that never come
	// (today, a Connect full-duplex stream, whose first message the REST
	// route waits to complete as JSON while the client waits for a
	// response) ends at this timeout, 30 s by default: well within the
	// runner's patience here, so that such a case fails alone.
	readIdleTimeout time.Duration
}
