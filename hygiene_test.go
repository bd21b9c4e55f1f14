package protorest_test

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"go/version"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// experimentalGRPC are grpc-go APIs documented as experimental. Only
// internal/invoke may use them, so that a grpc-go upgrade that changes
// them touches one package (see etcd-io/etcd#21094). The experimental
// method grpc.Server.ServeHTTP is confined to internal/grpcproxy, whose
// grpc.Server never leaves it.
var experimentalGRPC = []string{
	"grpc.NewContextWithServerTransportStream",
	"grpc.ForceCodec",
	"grpc.ForceServerCodec",
	"grpc.ForceCodecV2",
	"grpc.ForceServerCodecV2",
}

func TestExperimentalGRPCConfined(t *testing.T) {
	t.Parallel()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
				return filepath.SkipDir // another module (bench/, tools): not the core's code
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasPrefix(path, filepath.Join("internal", "invoke")) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, api := range experimentalGRPC {
			if strings.Contains(string(src), api+"(") {
				t.Errorf("%s uses the experimental %s; keep it in internal/invoke", path, api)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runtimeDeps are the modules the core module's code may be built with:
// what a user of the library or the binary downloads and links.
var runtimeDeps = []string{"google.golang.org/grpc", "google.golang.org/protobuf", "google.golang.org/genproto/", "golang.org/x/",
	// WithProtoFiles compiles .proto sources in-process; protocompile
	// itself needs only protobuf and golang.org/x/sync.
	"github.com/bufbuild/protocompile",
	// WebSocket streams; it has no dependencies of its own.
	"github.com/coder/websocket",
	// WithCompression: gzip and zstd (gzhttp for responses, the
	// decoders for request bodies); it has no dependencies of its own.
	"github.com/klauspost/compress",
	// Connect, gRPC-Web and gRPC at the canonical paths
	// (internal/protocols); it needs only protobuf.
	"connectrpc.com/connect"}

// testDeps are the modules only the core module's tests import. They are
// in go.mod, but with module graph pruning (go ≥ 1.17) a module that
// requires protorest never loads them: they reach no user's build.
var testDeps = []string{
	// goleak.Find in TestMain: no goroutine outlives the tests.
	"go.uber.org/goleak"}

func depAllowed(list []string, mod string) bool {
	for _, a := range list {
		if mod == a || strings.HasSuffix(a, "/") && strings.HasPrefix(mod, a) {
			return true
		}
	}
	return false
}

// TestCoreDependencies keeps the core module's requirements to grpc,
// protobuf and genproto (and what they need), and the few its tests need
// besides: the code outside tests is built from runtimeDeps only.
func TestCoreDependencies(t *testing.T) {
	t.Parallel()
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	inRequire := false
	for _, line := range strings.Split(string(mod), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "require ("):
			inRequire = true
			continue
		case line == ")":
			inRequire = false
			continue
		case strings.HasPrefix(line, "require "):
			line = strings.TrimPrefix(line, "require ")
		case !inRequire:
			continue
		}
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		path, _, _ := strings.Cut(line, " ")
		if !depAllowed(runtimeDeps, path) && !depAllowed(testDeps, path) {
			t.Errorf("go.mod requires %q; heavy or comparison-only dependencies belong in their own module", line)
		}
	}
	// What the packages are built from, tests aside.
	out, err := goCommand("list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, path := range strings.Fields(string(out)) {
		if path != "github.com/protorest/protorest" && !depAllowed(runtimeDeps, path) {
			t.Errorf("the core module's code is built with %s; only its tests may use a module outside runtimeDeps", path)
		}
	}
}

// goCommand is the go command run on the core module alone (GOWORK=off):
// with the versions its go.mod selects, those of a user's build, not the
// repository's workspace (go.work), whose other modules may select later
// ones.
func goCommand(args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOWORK=off")
	return cmd
}

// publishedModules are the repository's modules, besides the core, that
// users fetch by version: "go install
// github.com/protorest/protorest/cmd/protorest@v1.2.3" refuses a module
// whose go.mod has replace directives, so these require the core by
// version and are built against this checkout through go.work.
var publishedModules = []string{"cmd/protorest", "otelprotorest", "validateprotorest"}

func TestPublishedModulesHaveNoReplace(t *testing.T) {
	t.Parallel()
	for _, dir := range publishedModules {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(mod), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "replace") {
				t.Errorf("%s/go.mod: %q: go install ...@version refuses a module with replace directives; go.work builds it against this checkout", dir, line)
			}
		}
	}
}

// versionFloors are the oldest releases without a known hole that
// protorest's edge depends on (HARDENING.md §2; govulncheck cannot reach
// vuln.go.dev from here, so the floors are stated):
//   - go 1.25.6: net/http's HTTP/2 rapid reset (CVE-2023-44487/39325),
//     CONTINUATION flood (CVE-2023-45288), the query parameter cap
//     (CVE-2025-61726) and the later fixes of its line;
//   - golang.org/x/net 0.53.0 (CVE-2026-33814, as scanners report it);
//   - grpc 1.58.3: rapid reset on the server side;
//   - protobuf 1.33.0: protojson's endless loop on `{"":}` (CVE-2024-24786).
const goFloor = "go1.25.6"

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
	switch v := toolchainVersion(runtime.Version()); {
	case !version.IsValid(v):
		t.Errorf("cannot read the Go version %q", runtime.Version())
	case version.Compare(v, goFloor) < 0:
		t.Errorf("built with %s, older than %s", runtime.Version(), goFloor)
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
		if floor := versionFloors[path]; moduleOlder(version, floor) {
			t.Errorf("%s %s is older than %s", path, version, floor)
		}
	}
	if seen != len(versionFloors) {
		t.Errorf("go list -m said %q", out)
	}
}

// toolchainVersion returns the Go version runtime.Version reports in the
// form go/version reads: "go1.26.8" and "go1.26rc1" as they are, and a
// development build's "devel go1.27-abcdef Tue Jan 1 …" as "go1.27-abcdef".
func toolchainVersion(v string) string {
	if rest, ok := strings.CutPrefix(v, "devel "); ok {
		v, _, _ = strings.Cut(rest, " ")
	}
	return v
}

func TestToolchainVersion(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		runtime string
		older   bool // than goFloor
	}{
		{"go1.25.5", true},
		{"go1.25.6", false},
		{"go1.25", true},
		{"go1.25rc2", true},
		{"go1.26rc1", false},
		{"go1.26", false},
		{"go1.26.8", false},
		{"go1.26.0-bigcorp", false},
		{"go1.100.0", false},
		{"devel go1.27-abcdef123456 Tue Jan 6 10:00:00 2026 +0000", false},
		{"devel go1.25-abcdef123456 Tue Jan 6 10:00:00 2025 +0000", true},
	} {
		v := toolchainVersion(tt.runtime)
		if !version.IsValid(v) {
			t.Errorf("toolchainVersion(%q) = %q, not a Go version", tt.runtime, v)
			continue
		}
		if got := version.Compare(v, goFloor) < 0; got != tt.older {
			t.Errorf("%q older than %s = %v, want %v", tt.runtime, goFloor, got, tt.older)
		}
	}
}

// moduleOlder reports whether module version a ("v1.2.3", a
// pseudo-version or a pre-release) comes before b, comparing major, minor
// and patch numerically; a pre-release of b comes before b. (Go versions
// are not semantic versions: toolchainVersion and go/version read those.)
func moduleOlder(a, b string) bool {
	pa, prea := semver(a)
	pb, _ := semver(b)
	for i := range pa {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return prea
}

// semver returns the major, minor and patch of module version v, and
// whether it is a pre-release ("-rc1", a pseudo-version's "-0.2024…").
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

func TestModuleOlder(t *testing.T) {
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
		{"v0.0.0-20260101000000-abcdef123456", "v0.53.0", true},
		{"v1.58.3+incompatible", "v1.58.3", false},
	} {
		if got := moduleOlder(tt.a, tt.b); got != tt.want {
			t.Errorf("moduleOlder(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}

// TestRootFilesFormADAG: no file of the root package needs a file that
// needs it back. A file needs another when it uses an identifier (a type,
// a function, a method, a field) that the other declares; the test builds
// that graph with go/types, from the package's non-test files, and fails
// on a cycle, naming its files and an identifier for each step.
func TestRootFilesFormADAG(t *testing.T) {
	t.Parallel()
	// The imports' export data, as the go command builds it.
	out, err := goCommand("list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, file, _ := strings.Cut(line, "\t")
		exports[path] = file
	}
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	pkg, err := conf.Check("github.com/protorest/protorest", fset, files, info)
	if err != nil {
		t.Fatal(err)
	}

	// needs[a][b] is an identifier file a uses that file b declares.
	needs := map[string]map[string]string{}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !obj.Pos().IsValid() {
			continue
		}
		from, to := fset.Position(id.Pos()).Filename, fset.Position(obj.Pos()).Filename
		if from == to {
			continue
		}
		if needs[from] == nil {
			needs[from] = map[string]string{}
		}
		needs[from][to] = id.Name
	}
	if len(needs) == 0 {
		t.Fatal("no file uses another's declarations: the graph was not built")
	}

	// A depth-first search: a file met again while it is on the path
	// closes a cycle.
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(f string)
	visit = func(f string) {
		state[f] = onPath
		path = append(path, f)
		next := slices.Sorted(maps.Keys(needs[f]))
		for _, g := range next {
			switch state[g] {
			case onPath:
				cycle := path[slices.Index(path, g):]
				var steps []string
				for i, a := range cycle {
					b := g
					if i+1 < len(cycle) {
						b = cycle[i+1]
					}
					steps = append(steps, fmt.Sprintf("%s needs %s (%s)", a, b, needs[a][b]))
				}
				t.Errorf("the root package's files form a cycle: %s", strings.Join(steps, ", "))
			case unseen:
				visit(g)
			}
		}
		path = path[:len(path)-1]
		state[f] = done
	}
	for _, f := range slices.Sorted(maps.Keys(needs)) {
		if state[f] == unseen {
			visit(f)
		}
	}
}
