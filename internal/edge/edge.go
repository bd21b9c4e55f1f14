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

// Unless returns layer, skipped for the requests skip reports; nil when
// layer is nil.
func Unless(skip func(*http.Request) bool, layer Layer) Layer {
	if layer == nil {
		return nil
	}
	return func(next http.Handler) http.Handler {
		wrapped := layer(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if skip(r) {
				next.ServeHTTP(w, r)
				return
			}
			wrapped.ServeHTTP(w, r)
		})
	}
}
