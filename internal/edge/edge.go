// Package edge holds the layers a gateway's requests pass through before
// they are routed: compression, admission, CORS. Each is an http.Handler
// around the next; Chain composes them once, around the router, and
// leaves out the layers of features that are off, so that they cost a
// request nothing.
package edge

import "net/http"

// A Layer wraps next with one feature of the edge.
type Layer func(next http.Handler) http.Handler

// Chain returns h inside layers, the first outermost. A nil layer (a
// feature that is off) is left out.
func Chain(h http.Handler, layers ...Layer) http.Handler {
	for i := len(layers) - 1; i >= 0; i-- {
		if layers[i] != nil {
			h = layers[i](h)
		}
	}
	return h
}
