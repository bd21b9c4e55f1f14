package main

import (
	"fmt"
	"image/color"
	"math"

	"github.com/protorest/protorest/bench/internal/barchart"
)

// PeersChart is the chart of BenchmarkPeers' in-process times, relative to
// the floor's: floor (1.0), grpc-gateway and protorest for every op.
func PeersChart(res *Results, meta Meta) barchart.BarChart {
	v := View{res, benchPkg, -1}
	c := barchart.BarChart{
		Title: "Time per request, in-process, relative to the hand-written floor (lower is better)",
		Subtitle: fmt.Sprintf("medians of %d interleaved passes, -benchtime %s · %s, %s CPUs, %s · %s · %s",
			meta.Passes, meta.Benchtime, meta.GOARCH, meta.NProc, meta.CPU, meta.GoVersion, meta.Date),
		RefLabel: "floor",
		Empty:    "no BenchmarkPeers results",
	}
	series := []struct {
		peer  string
		label string
		color color.RGBA
	}{
		{floor, "floor (net/http + encoding/json)", color.RGBA{0xa0, 0xa4, 0xab, 0xff}},
		{gwInProc, "grpc-gateway in-process", color.RGBA{0xe3, 0x7b, 0x20, 0xff}},
		{prInProc, "protorest in-process", color.RGBA{0x24, 0x6b, 0xce, 0xff}},
	}
	c.Groups = v.Sub("BenchmarkPeers", 0)
	for _, s := range series {
		vals := make([]float64, len(c.Groups))
		for i, op := range c.Groups {
			r, ok := v.Ratio(peerName(op, s.peer), peerName(op, floor), "ns/op")
			if !ok {
				r = math.NaN()
			}
			vals[i] = r
		}
		c.Series = append(c.Series, barchart.Series{Label: s.label, Color: s.color, Values: vals})
	}
	return c
}
