package pattern

import (
	"slices"
	"strings"
)

// Cover returns patterns that together match every name in want and no
// name in avoid, few and general: for each name not matched yet, its
// suite as a whole ("Suite/**") if that is allowed, else the broader of
// two candidates (its axes with any test case, or its test case with
// any axes) with as many of its axes replaced by "*" as are allowed. The
// patterns come sorted, each one the runner credits with a name (see
// credited); want and avoid must not share a name.
func Cover(want, avoid []string) []string {
	want = slices.Sorted(slices.Values(want))
	var out []string
	for _, name := range want {
		if MatchAny(out, name) {
			continue
		}
		out = append(out, best(strings.Split(name, "/"), want, avoid))
	}
	used := credited(out, want)
	out = slices.DeleteFunc(out, func(p string) bool { return !used[p] })
	slices.Sort(out)
	return out
}

// best is the pattern Cover makes for the name of components c.
func best(c, want, avoid []string) string {
	allowed := func(p []string) bool {
		s := strings.Join(p, "/")
		for _, a := range avoid {
			if Match(s, a) {
				return false
			}
		}
		return true
	}
	if suite := []string{c[0], "**"}; allowed(suite) {
		return strings.Join(suite, "/")
	}
	tail := 1
	for tail < len(c) && isAxis(c[tail]) {
		tail++
	}
	anyCase := append(slices.Clone(c[:tail]), "**")
	exact := slices.Clone(c)
	candidates := [][]string{exact}
	if allowed(anyCase) {
		candidates = append(candidates, anyCase)
	}
	bestPattern, bestCount := "", -1
	for _, p := range candidates {
		for i := 1; i < tail; i++ {
			axis := p[i]
			p[i] = "*"
			if !allowed(p) {
				p[i] = axis
			}
		}
		s := strings.Join(p, "/")
		if n := count(s, want); n > bestCount {
			bestPattern, bestCount = s, n
		}
	}
	return bestPattern
}

// count is how many names match pattern.
func count(pattern string, names []string) int {
	n := 0
	for _, name := range names {
		if Match(pattern, name) {
			n++
		}
	}
	return n
}
