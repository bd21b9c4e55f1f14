package route

import (
	"slices"
	"sync"
	"sync/atomic"
)

// A Table is a server's entries and the tree requests are matched
// against. Entries are added and swapped all or nothing, and safely while
// requests are served: a tree handed out by Tree is never changed again
// (the next change builds a new one), so requests read it without a lock
// and see the old entries or the new ones, never a mix. Each entry
// belongs to a group (a service) registered once. The zero Table is empty
// and ready; set StrictTrailingSlash and EncodedSlashFallback (see
// [Tree]) before the first use.
type Table[V any] struct {
	StrictTrailingSlash  bool
	EncodedSlashFallback bool

	mu      sync.Mutex
	staging *Tree[V] // every entry, for conflict checks; nil once served
	entries []*Entry[V]
	groups  map[string]bool
	served  atomic.Pointer[Tree[V]] // nil when entries changed since
	version atomic.Uint64           // counts the changes; written under mu
}

// GroupError is the error of a group registered twice.
type GroupError struct{ Group string }

func (e *GroupError) Error() string { return e.Group + " registered twice" }

// Replace swaps the entries in drop for add, and the groups in dropGroups
// for groups, all or nothing: on a conflict (a *ConflictError) or a group
// already registered (a *GroupError) the table is as it was.
func (t *Table[V]) Replace(drop, add []*Entry[V], dropGroups, groups []string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, g := range groups {
		if t.groups[g] && !slices.Contains(dropGroups, g) {
			return &GroupError{g}
		}
	}
	kept := t.entries
	if len(drop) > 0 {
		kept = slices.DeleteFunc(slices.Clone(t.entries), func(e *Entry[V]) bool { return slices.Contains(drop, e) })
	}
	next := t.staging
	if next == nil || len(drop) > 0 {
		// The tree is being served (it must not change), or entries go:
		// start a new one.
		next = t.build(kept)
	}
	for _, e := range add {
		if err := next.Add(e); err != nil {
			t.staging = nil // it may hold some of add
			return err
		}
	}
	t.staging = next
	t.entries = append(kept, add...)
	if t.groups == nil {
		t.groups = map[string]bool{}
	}
	for _, g := range dropGroups {
		delete(t.groups, g)
	}
	for _, g := range groups {
		t.groups[g] = true
	}
	t.served.Store(nil)
	t.version.Add(1)
	return nil
}

// Entries returns the entries, in the order they were added (a swap puts
// the new entries last), and the table's version, which every change
// increments: what is built from the entries stays good while the
// version is the same.
func (t *Table[V]) Entries() ([]*Entry[V], uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.entries), t.version.Load()
}

// Version returns the table's version; see Entries. It takes no lock: a
// reader checks whether what it built is still good.
func (t *Table[V]) Version() uint64 { return t.version.Load() }

// build returns a new tree of entries, which are known not to conflict.
func (t *Table[V]) build(entries []*Entry[V]) *Tree[V] {
	tree := &Tree[V]{StrictTrailingSlash: t.StrictTrailingSlash, EncodedSlashFallback: t.EncodedSlashFallback}
	for _, e := range entries {
		if err := tree.Add(e); err != nil {
			panic("route: internal error: the table's entries conflict: " + err.Error())
		}
	}
	return tree
}

// Tree returns the tree to match requests against, built once after the
// entries changed. It is never changed afterwards.
func (t *Table[V]) Tree() *Tree[V] {
	if tree := t.served.Load(); tree != nil {
		return tree
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if tree := t.served.Load(); tree != nil {
		return tree
	}
	tree := t.staging
	if tree == nil {
		tree = t.build(t.entries)
	}
	t.served.Store(tree)
	t.staging = nil // later changes build a fresh tree
	return tree
}
