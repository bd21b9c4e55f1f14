package main

import (
	"encoding/json"
	"net/http"

	"google.golang.org/grpc/connectivity"
)

// The probes of an orchestrator, beside the health report (upstream.go):
//
//   - livez: the process serves HTTP. Always 200: a liveness probe that
//     failed with the upstream would restart a gateway that is fine, and
//     the restart would not bring the upstream back.
//   - readyz: requests can be served now: the routes are loaded and the
//     upstream connection is READY. 503 otherwise, so that a readiness
//     probe takes the gateway out of the load balancer until it is.
//
// Neither calls the upstream: a probe answers from state the gateway
// already has, at once.

// probeReport is the JSON body of the probes.
type probeReport struct {
	Status string `json:"status"`           // "ok" or "not ready"
	Reason string `json:"reason,omitempty"` // why not
}

// writeProbe writes a report of the probes or of the health path: JSON,
// never cached.
func writeProbe(w http.ResponseWriter, code int, rep any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(rep)
}

// livez answers 200 while the process serves.
func livez(w http.ResponseWriter, _ *http.Request) {
	writeProbe(w, http.StatusOK, probeReport{Status: "ok"})
}

// readyz answers 200 when the routes are loaded and the upstream
// connection is READY, else 503 with the reason.
func (u *upstream) readyz(w http.ResponseWriter, _ *http.Request) {
	state := u.conn.GetState()
	if state == connectivity.Idle {
		u.conn.Connect() // idle is not down: wake it for the next probe
	}
	switch {
	case !u.loaded.Load():
		writeProbe(w, http.StatusServiceUnavailable, probeReport{Status: "not ready", Reason: "routes not loaded: upstream " + state.String()})
	case state != connectivity.Ready:
		writeProbe(w, http.StatusServiceUnavailable, probeReport{Status: "not ready", Reason: "upstream " + state.String()})
	default:
		writeProbe(w, http.StatusOK, probeReport{Status: "ok"})
	}
}
