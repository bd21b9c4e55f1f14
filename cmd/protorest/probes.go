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
// already has, at once. The access log writes their requests at debug
// (--access-log-probes), and a change of readiness is logged once, when
// it happens, not at every probe.

// probePaths are the paths of the probes and of the health report that
// serve answers (a path of "" is not served).
func (c *serveConfig) probePaths() []string {
	var paths []string
	for _, p := range []string{c.healthPath, c.livezPath, c.readyzPath} {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths
}

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
	if u.conn.GetState() == connectivity.Idle {
		u.conn.Connect() // idle is not down: wake it for the next probe
	}
	if ready, reason := u.readiness(); !ready {
		writeProbe(w, http.StatusServiceUnavailable, probeReport{Status: "not ready", Reason: reason})
		return
	}
	writeProbe(w, http.StatusOK, probeReport{Status: "ok"})
}

// readiness says whether requests can be served now, as readyz answers:
// the routes are loaded and the upstream connection is READY; if not,
// why.
func (u *upstream) readiness() (ready bool, reason string) {
	state := u.conn.GetState()
	switch {
	case !u.loaded.Load():
		return false, "routes not loaded: upstream " + state.String()
	case state != connectivity.Ready:
		return false, "upstream " + state.String()
	}
	return true, ""
}

// logReadiness logs a change of readiness from was, once, whatever the
// probes ask meanwhile: ready at info, not ready at warn with the reason.
// It returns the readiness now. Not being ready at start is no change:
// it is logged only once the gateway has been ready.
func (u *upstream) logReadiness(was bool) bool {
	ready, reason := u.readiness()
	switch {
	case ready && !was:
		u.log.Info("ready", "upstream", u.target)
	case !ready && was:
		u.log.Warn("not ready", "reason", reason, "upstream", u.target)
	}
	return ready
}
