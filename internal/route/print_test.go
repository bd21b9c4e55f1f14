package route

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/tree.golden")

// TestTreeGolden prints the tree of Fixtures A and B and the extra
// templates, registered in reverse order to show that the order does not
// matter, and compares it with testdata/tree.golden.
func TestTreeGolden(t *testing.T) {
	var rules []rule
	for _, f := range [][]rule{fixtureA, fixtureB, fixtureExtra} {
		rules = append(rules, f...)
	}
	forward := newTree(t, false, rules)
	var backward []rule
	for i := len(rules) - 1; i >= 0; i-- {
		backward = append(backward, rules[i])
	}
	got := newTree(t, false, backward).String()
	if f := forward.String(); f != got {
		t.Errorf("the printed tree depends on the registration order:\n%s\nvs\n%s", f, got)
	}
	golden := filepath.Join("testdata", "tree.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestTreeGolden -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("Tree.String() differs from %s (rerun with -update if the change is intended):\n%s", golden, got)
	}
}

func TestTreeStringEmpty(t *testing.T) {
	t.Parallel()
	var tree Tree[int]
	if got := tree.String(); got != "/\n" {
		t.Errorf("empty tree = %q, want %q", got, "/\n")
	}
}
