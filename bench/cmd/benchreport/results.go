package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Results are the samples of Go benchmark output, in the standard format
// (https://go.googlesource.com/proposal/+/master/design/14313-benchmark-format.md):
// "key: value" configuration lines, and result lines
//
//	BenchmarkName-P   N   v1 unit1   v2 unit2 ...
//
// A benchmark's samples are kept in the order they were read, so the
// i-th sample of every benchmark comes from the i-th interleaved pass.
type Results struct {
	// Config is the last value of every configuration key (goos, goarch,
	// cpu, pkg, and the run's own: count, benchtime, go, date...).
	Config map[string]string
	// Names are the benchmarks of each package, in order of first
	// appearance, with the GOMAXPROCS suffix removed.
	Names   map[string][]string
	samples map[sampleKey][]float64
}

type sampleKey struct{ pkg, name, unit string }

// NewResults returns empty Results.
func NewResults() *Results {
	return &Results{Config: map[string]string{}, Names: map[string][]string{}, samples: map[sampleKey][]float64{}}
}

// configLine is a configuration line: a key of lower-case letters,
// digits, '-' and '_' (no spaces, no upper case), a colon, the value.
var configLine = regexp.MustCompile(`^([a-z][a-z0-9_.-]*):\s*(.*?)\s*$`)

// procsSuffix is the GOMAXPROCS suffix go test adds to a benchmark's name
// when GOMAXPROCS is not 1.
var procsSuffix = regexp.MustCompile(`-[0-9]+$`)

// Parse adds the samples of r to res. Lines that are neither results nor
// configuration (PASS, ok, logs) are skipped, and so are malformed result
// lines (a benchmark's log output can start with "Benchmark"); a "pkg"
// line sets the package of the results that follow it, as in go test's
// output of several packages.
func (res *Results) Parse(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	pkg := res.Config["pkg"]
	for sc.Scan() {
		line := sc.Text()
		if m := configLine.FindStringSubmatch(line); m != nil {
			res.Config[m[1]] = m[2]
			if m[1] == "pkg" {
				pkg = m[2]
			}
			continue
		}
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.ParseUint(f[1], 10, 64); err != nil {
			continue
		}
		vals := make([]float64, 0, len(f)/2-1)
		ok := true
		for i := 2; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				ok = false
				break
			}
			vals = append(vals, v)
		}
		if !ok {
			continue
		}
		name := procsSuffix.ReplaceAllString(f[0], "")
		if !slices.Contains(res.Names[pkg], name) {
			res.Names[pkg] = append(res.Names[pkg], name)
		}
		for i, v := range vals {
			k := sampleKey{pkg, name, f[3+2*i]}
			res.samples[k] = append(res.samples[k], v)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading benchmark output: %w", err)
	}
	return nil
}

// Samples are the values of pkg's benchmark name in unit, in order.
func (res *Results) Samples(pkg, name, unit string) []float64 {
	return res.samples[sampleKey{pkg, name, unit}]
}

// Units are the units pkg's benchmark name reported, ns/op first, then
// B/op, allocs/op, then the others sorted.
func (res *Results) Units(pkg, name string) []string {
	var units []string
	for k := range res.samples {
		if k.pkg == pkg && k.name == name {
			units = append(units, k.unit)
		}
	}
	rank := func(u string) int {
		switch u {
		case "ns/op":
			return 0
		case "B/op":
			return 1
		case "allocs/op":
			return 2
		}
		return 3
	}
	slices.SortFunc(units, func(a, b string) int {
		if c := rank(a) - rank(b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return units
}

// Packages are the packages that have results, sorted.
func (res *Results) Packages() []string {
	var pkgs []string
	for p := range res.Names {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	return pkgs
}

// SampleRange is the smallest and the largest number of samples of any
// benchmark and unit of pkg, or of every package if pkg is "": the
// number of complete passes, and of passes.
func (res *Results) SampleRange(pkg string) (lo, hi int) {
	lo = -1
	for k, s := range res.samples {
		if pkg != "" && k.pkg != pkg {
			continue
		}
		if lo < 0 || len(s) < lo {
			lo = len(s)
		}
		hi = max(hi, len(s))
	}
	return max(lo, 0), hi
}

// Median is the median of xs (the mean of the middle two for an even
// count); false for none.
func Median(xs []float64) (float64, bool) {
	if len(xs) == 0 {
		return 0, false
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m], true
	}
	return (s[m-1] + s[m]) / 2, true
}

// Spreads are, for every benchmark of pkg with at least two samples in
// unit, the median absolute deviation of its samples relative to their
// median.
func (res *Results) Spreads(pkg, unit string) []float64 {
	var out []float64
	for _, name := range res.Names[pkg] {
		s := res.Samples(pkg, name, unit)
		m, ok := Median(s)
		if !ok || len(s) < 2 || m == 0 {
			continue
		}
		dev := make([]float64, len(s))
		for i, x := range s {
			dev[i] = math.Abs(x - m)
		}
		mad, _ := Median(dev)
		out = append(out, mad/m)
	}
	return out
}

// Outliers counts the samples of pkg in unit that are more than factor
// times their benchmark's median, out of n samples.
func (res *Results) Outliers(pkg, unit string, factor float64) (out, n int) {
	for _, name := range res.Names[pkg] {
		s := res.Samples(pkg, name, unit)
		m, _ := Median(s)
		for _, x := range s {
			n++
			if x > factor*m {
				out++
			}
		}
	}
	return out, n
}

// Quantile is the q-quantile of xs (nearest rank); false for none.
func Quantile(xs []float64, q float64) (float64, bool) {
	if len(xs) == 0 {
		return 0, false
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)], true
}

// A View reads one package's results: medians (Pass < 0) or the samples
// of one pass.
type View struct {
	Res  *Results
	Pkg  string
	Pass int
}

// Get is benchmark name's median in unit, or its sample of v.Pass.
func (v View) Get(name, unit string) (float64, bool) {
	s := v.Res.Samples(v.Pkg, name, unit)
	if v.Pass < 0 {
		return Median(s)
	}
	if v.Pass >= len(s) {
		return 0, false
	}
	return s[v.Pass], true
}

// Ratio is a's value over b's in unit; false if either is missing or b's
// is 0.
func (v View) Ratio(a, b, unit string) (float64, bool) {
	x, ok1 := v.Get(a, unit)
	y, ok2 := v.Get(b, unit)
	if !ok1 || !ok2 || y == 0 {
		return 0, false
	}
	return x / y, true
}

// Sub are the distinct path elements that follow prefix+"/" in the
// names of the view's package, at depth elements below it, in order of
// first appearance: Sub("BenchmarkPeers", 0) are the ops,
// Sub("BenchmarkPeers", 1) the peers.
func (v View) Sub(prefix string, depth int) []string {
	var out []string
	for _, n := range v.Res.Names[v.Pkg] {
		rest, ok := strings.CutPrefix(n, prefix+"/")
		if !ok {
			continue
		}
		parts := strings.Split(rest, "/")
		if depth >= len(parts) {
			continue
		}
		if !slices.Contains(out, parts[depth]) {
			out = append(out, parts[depth])
		}
	}
	return out
}
