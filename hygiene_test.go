package protorest_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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
