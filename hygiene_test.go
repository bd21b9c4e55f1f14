package protorest_test

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	"github.com/klauspost/compress"}

// testDeps are the modules only the core module's tests import. They are
// in go.mod, but with module graph pruning (go ≥ 1.17) a module that
// requires protorest never loads them: they reach no user's build.
var testDeps = []string{
	// goleak.VerifyTestMain: no goroutine outlives the tests.
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
var publishedModules = []string{"cmd/protorest", "otelprotorest"}

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
