package route

import (
	"errors"
	"sync"
	"testing"
)

// matches returns the value the tree matches for method and path, "" for
// none.
func matches(tree *Tree[string], method, path string) string {
	var m Match[string]
	if !tree.Match(method, path, &m) {
		return ""
	}
	return m.Entry.Value
}

// TestTable: changes are all or nothing, a served tree never changes, and
// a group is registered once.
func TestTable(t *testing.T) {
	t.Parallel()
	var tab Table[string]
	a := newEntry(t, rule{"GET", "/a/{x}", "A"})
	b := newEntry(t, rule{"GET", "/b", "B"})
	if _, v := tab.Entries(); v != 0 {
		t.Fatalf("empty table: version %d", v)
	}
	if err := tab.Replace(nil, []*Entry[string]{a}, nil, []string{"svc"}); err != nil {
		t.Fatal(err)
	}
	if es, v := tab.Entries(); len(es) != 1 || es[0] != a || v != 1 || tab.Version() != 1 {
		t.Fatalf("after one change: %v, version %d", es, v)
	}
	first := tab.Tree()
	if matches(first, "GET", "/a/1") != "A" || tab.Tree() != first {
		t.Fatal("the first tree does not serve A, or is rebuilt unchanged")
	}

	// A conflict (the same route again) and a group taken change nothing.
	dup := newEntry(t, rule{"GET", "/a/{y}", "A2"})
	var ce *ConflictError
	if err := tab.Replace(nil, []*Entry[string]{b, dup}, nil, nil); !errors.As(err, &ce) {
		t.Fatalf("conflict: %v", err)
	}
	var ge *GroupError
	if err := tab.Replace(nil, []*Entry[string]{b}, nil, []string{"svc"}); !errors.As(err, &ge) || ge.Error() != "svc registered twice" {
		t.Fatalf("group taken: %v", err)
	}
	if tab.Tree() != first || matches(first, "GET", "/b") != "" || tab.Version() != 1 {
		t.Fatal("a failed change changed the routes, or the version")
	}

	// A swap: the served tree keeps the old routes, the next one has the
	// new ones, and the group may be registered again.
	if err := tab.Replace([]*Entry[string]{a}, []*Entry[string]{b}, []string{"svc"}, []string{"svc"}); err != nil {
		t.Fatal(err)
	}
	if es, v := tab.Entries(); len(es) != 1 || es[0] != b || v != 2 {
		t.Fatalf("after a swap: %v, version %d", es, v)
	}
	next := tab.Tree()
	if matches(first, "GET", "/a/1") != "A" || matches(first, "GET", "/b") != "" {
		t.Error("the served tree changed")
	}
	if matches(next, "GET", "/b") != "B" || matches(next, "GET", "/a/1") != "" {
		t.Error("the next tree does not have the swap")
	}
}

// TestTableConcurrent: requests read trees while entries are swapped
// (run with -race); every tree read is whole: it serves one of the two
// route sets, never a mix.
func TestTableConcurrent(t *testing.T) {
	t.Parallel()
	var tab Table[string]
	one := []*Entry[string]{newEntry(t, rule{"GET", "/x", "1"}), newEntry(t, rule{"GET", "/y", "1"})}
	two := []*Entry[string]{newEntry(t, rule{"GET", "/x", "2"}), newEntry(t, rule{"GET", "/y", "2"})}
	if err := tab.Replace(nil, one, nil, []string{"s"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				tree := tab.Tree()
				if x, y := matches(tree, "GET", "/x"), matches(tree, "GET", "/y"); x != y || x == "" {
					t.Errorf("a mixed tree: /x %q, /y %q", x, y)
					return
				}
			}
		})
	}
	cur, other := one, two
	for range 200 {
		if err := tab.Replace(cur, other, []string{"s"}, []string{"s"}); err != nil {
			t.Fatal(err)
		}
		cur, other = other, cur
	}
	close(done)
	wg.Wait()
}
