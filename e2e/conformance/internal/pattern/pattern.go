// Package pattern matches and makes the conformance runner's test case
// patterns (its --run, --skip, --known-failing and --known-flaky): a
// test case's full name is components separated by "/" (the suite, the
// permutation's axes such as "HTTPVersion:2" or "Protocol:PROTOCOL_GRPC",
// then the test case's own name); in a pattern, "*" stands for any one
// component and "**" for any number of them, none included.
package pattern

import "strings"

// Match reports whether the test case name matches pattern, as the runner
// decides it.
func Match(pattern, name string) bool {
	return match(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func match(p, n []string) bool {
	switch {
	case len(p) == 0:
		return len(n) == 0
	case p[0] == "**":
		for i := range len(n) + 1 {
			if match(p[1:], n[i:]) {
				return true
			}
		}
		return false
	case len(n) == 0:
		return false
	case p[0] == "*" || p[0] == n[0]:
		return match(p[1:], n[1:])
	}
	return false
}

// MatchAny reports whether name matches one of patterns.
func MatchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if Match(p, name) {
			return true
		}
	}
	return false
}

// isAxis reports whether a component of a name is one of a permutation's
// axes ("Codec:CODEC_JSON", "(grpc client impl)"), not the test case's
// own name.
func isAxis(c string) bool {
	return strings.Contains(c, ":") || strings.HasPrefix(c, "(")
}
