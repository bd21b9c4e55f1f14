package main

import (
	"fmt"
	"image/color"
	"math"

	"github.com/protorest/protorest/bench"
	"github.com/protorest/protorest/bench/internal/barchart"
)

// cpuChart is the chart of CPU per request relative to the floor, over
// HTTP/1.1 (or the first protocol measured): remote routes, then
// in-process ones.
func cpuChart(run *Run, m map[key]median) barchart.BarChart {
	proto := protocols[0]
	for _, p := range protocols {
		if hasAny(m, p.name, "protorest") || hasAny(m, p.name, bench.ProtorestInProcessName) {
			proto = p
			break
		}
	}
	c := barchart.BarChart{
		Title: "CPU per request under load, relative to the hand-written floor (lower is better)",
		Subtitle: fmt.Sprintf("%s, %d connections, medians of %d interleaved rounds of %s · %s · %s",
			proto.label, run.Conns, run.Count, run.Duration, run.Machine, run.Date),
		RefLabel: "floor",
		Empty:    "no results",
	}
	series := []struct {
		label          string
		color          color.RGBA
		remote, inproc string
	}{
		{"floor (hand-written)", color.RGBA{0xa0, 0xa4, 0xab, 0xff}, bench.FloorProxyName, bench.FloorName},
		{"grpc-gateway", color.RGBA{0xe3, 0x7b, 0x20, 0xff}, "grpc-gateway", bench.GRPCGatewayInProcessName},
		{"vanguard", color.RGBA{0x7a, 0x4f, 0xb5, 0xff}, bench.VanguardName, ""},
		{"protorest", color.RGBA{0x24, 0x6b, 0xce, 0xff}, "protorest", bench.ProtorestInProcessName},
	}
	type group struct{ label, route, floor string }
	var groups []group
	for _, inproc := range []bool{false, true} {
		for _, r := range bench.Routes {
			g := group{r.Name, r.Name, bench.FloorProxyName}
			if inproc {
				g = group{r.Name + " in-proc", r.Name, bench.FloorName}
			}
			if _, ok := m[key{proto.name, g.route, g.floor}]; ok {
				groups = append(groups, g)
			}
		}
	}
	for _, g := range groups {
		c.Groups = append(c.Groups, g.label)
	}
	for _, s := range series {
		vals := make([]float64, len(groups))
		for i, g := range groups {
			name := s.remote
			if g.floor == bench.FloorName {
				name = s.inproc
			}
			vals[i] = math.NaN()
			if name != "" {
				vals[i] = ratio(m, proto.name, g.route, name, g.floor, cpuOf)
			}
		}
		c.Series = append(c.Series, barchart.Series{Label: s.label, Color: s.color, Values: vals})
	}
	return c
}
