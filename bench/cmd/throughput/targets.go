package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/protorest/protorest/bench"
	"github.com/protorest/protorest/bench/internal/mdsection"
)

// A target is one of issue 24's targets: the ratio of contender a's
// median to b's, on routes (nil: every route), within limit.
type target struct {
	what    string
	a, b    string
	routes  []string
	value   func(median) float64
	limit   float64
	atLeast bool // the ratio must be at least limit, else at most
}

var targets = []target{
	{what: "protorest serve vs the floor proxy, CPU/request, get", a: "protorest", b: bench.FloorProxyName, routes: []string{"get"}, value: cpuOf, limit: 1.15},
	{what: "protorest serve vs grpc-gateway, CPU/request, every route", a: "protorest", b: "grpc-gateway", value: cpuOf, limit: 0.6},
	{what: "protorest serve vs grpc-gateway, req/s, every route", a: "protorest", b: "grpc-gateway", value: rpsOf, limit: 1.3, atLeast: true},
	{what: "protorest serve vs grpc-gateway, p99, every route", a: "protorest", b: "grpc-gateway", value: p99Of, limit: 1},
	{what: "protorest in-process vs the floor in-process, CPU/request, get and post", a: bench.ProtorestInProcessName, b: bench.FloorName, routes: []string{"get", "post"}, value: cpuOf, limit: 1.1},
	{what: "protorest in-process vs grpc-gateway in-process, CPU/request, get and post", a: bench.ProtorestInProcessName, b: bench.GRPCGatewayInProcessName, routes: []string{"get", "post"}, value: cpuOf, limit: 0.5},
}

// targetsTable writes each target's status on each protocol measured:
// the worst ratio over its routes decides.
func targetsTable(b *strings.Builder, m map[key]median) {
	t := mdsection.Table{Head: []string{"target", "protocol", "measured (medians)", "status"}, Align: "llrl"}
	for _, tg := range targets {
		bound := "≤ "
		if tg.atLeast {
			bound = "≥ "
		}
		for _, p := range protocols {
			worst, best := math.NaN(), math.NaN()
			var worstRoute string
			routes := tg.routes
			if routes == nil {
				for _, r := range bench.Routes {
					routes = append(routes, r.Name)
				}
			}
			for _, route := range routes {
				r := ratio(m, p.name, route, tg.a, tg.b, tg.value)
				if math.IsNaN(r) {
					continue
				}
				if math.IsNaN(worst) || tg.worse(r, worst) {
					worst, worstRoute = r, route
				}
				if math.IsNaN(best) || tg.worse(best, r) {
					best = r
				}
			}
			if math.IsNaN(worst) {
				continue
			}
			measured := fmt.Sprintf("%s (%s)", fmtRatio(worst), worstRoute)
			if len(routes) > 1 && best != worst {
				measured = fmt.Sprintf("worst %s (%s), best %s", fmtRatio(worst), worstRoute, fmtRatio(best))
			}
			status := "met"
			if tg.worse(worst, tg.limit) {
				status = "**missed**"
			}
			t.Add(tg.what+": "+bound+trim(tg.limit)+"×", p.name, measured, status)
		}
	}
	fmt.Fprintf(b, "%s\n", &t)
}

// worse reports whether ratio x is worse than y for the target.
func (tg target) worse(x, y float64) bool {
	if tg.atLeast {
		return x < y
	}
	return x > y
}

func trim(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}
