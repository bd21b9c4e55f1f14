package protorest_test

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// versionFloors are the oldest releases without a known hole that
// protorest's edge depends on (HARDENING.md §2; govulncheck cannot reach
// vuln.go.dev from here, so the floors are stated):
//   - go 1.25.6: net/http's HTTP/2 rapid reset (CVE-2023-44487/39325),
//     CONTINUATION flood (CVE-2023-45288), the query parameter cap
//     (CVE-2025-61726) and the later fixes of its line;
//   - golang.org/x/net 0.53.0 (CVE-2026-33814, as scanners report it);
//   - grpc 1.58.3: rapid reset on the server side;
//   - protobuf 1.33.0: protojson's endless loop on `{"":}` (CVE-2024-24786).
var versionFloors = map[string]string{
	"golang.org/x/net":           "v0.53.0",
	"google.golang.org/grpc":     "v1.58.3",
	"google.golang.org/protobuf": "v1.33.0",
}

// TestVersionFloor checks the Go toolchain the tests run with, and the
// versions of the floors' modules in the core module's build list (go
// list -m: the versions a build of the library or the binary from this
// module selects; a test binary's debug.ReadBuildInfo lists no modules).
func TestVersionFloor(t *testing.T) {
	t.Parallel()
	if v := strings.TrimPrefix(runtime.Version(), "go"); !strings.HasPrefix(v, "devel") && older(v, "1.25.6") {
		t.Errorf("built with go %s, older than 1.25.6", v)
	}
	args := []string{"list", "-m", "-f", "{{.Path}} {{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}"}
	for path := range versionFloors {
		args = append(args, path)
	}
	out, err := goCommand(args...).Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, version, _ := strings.Cut(line, " ")
		seen++
		if floor := versionFloors[path]; older(version, floor) {
			t.Errorf("%s %s is older than %s", path, version, floor)
		}
	}
	if seen != len(versionFloors) {
		t.Errorf("go list -m said %q", out)
	}
}

// older reports whether version a ("v1.2.3", "1.25.6", a pseudo-version
// or a pre-release of either) comes before b, comparing major, minor and
// patch numerically; a pre-release of b comes before b.
func older(a, b string) bool {
	pa, prea := semver(a)
	pb, _ := semver(b)
	for i := range pa {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return prea
}

// semver returns the major, minor and patch of v, and whether it is a
// pre-release ("-rc1", a pseudo-version's "-0.2024…").
func semver(v string) ([3]int, bool) {
	v = strings.TrimPrefix(v, "v")
	v, _, _ = strings.Cut(v, "+")
	v, _, isPre := strings.Cut(v, "-")
	var n [3]int
	for i, part := range strings.SplitN(v, ".", 3) {
		n[i], _ = strconv.Atoi(part)
	}
	return n, isPre
}

func TestOlder(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"v1.58.2", "v1.58.3", true},
		{"v1.58.3", "v1.58.3", false},
		{"v1.85.0", "v1.58.3", false},
		{"v0.9.0", "v0.53.0", true},
		{"v0.53.0-rc1", "v0.53.0", true},
		{"v0.53.1-0.20260101000000-abcdef123456", "v0.53.0", false},
		{"1.25", "1.25.6", true},
		{"1.26.8", "1.25.6", false},
	} {
		if got := older(tt.a, tt.b); got != tt.want {
			t.Errorf("older(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}
