package knownfailing

import (
	"slices"

	"github.com/protorest/protorest/e2e/conformance/internal/pattern"
)

// An Update is what Update did.
type Update struct {
	// Cases is how many failing cases each block now holds.
	Cases map[*Block]int
	// Dropped is the reasons of the blocks left without a failing case,
	// which Update removed.
	Dropped []string
	// Unexplained is the failing cases no block selects.
	Unexplained []string
}

// Update regenerates the blocks' patterns from runs that named every
// case (--known-failing "**"): cases are the names the list is for (the
// cases that failed, or for a list of flaky cases those that failed in
// some runs only), others the names of every other case. Each block's
// patterns match its cases and no other case, of another block or of
// others. Blocks left with no case are removed. A case no block selects
// is Unexplained, and matched by no pattern.
func (f *File) Update(cases, others []string) Update {
	u := Update{Cases: map[*Block]int{}}
	own := map[*Block][]string{}
	for _, name := range slices.Sorted(slices.Values(cases)) {
		if b := f.selecting(name); b != nil {
			own[b] = append(own[b], name)
		} else {
			u.Unexplained = append(u.Unexplained, name)
		}
	}
	var kept []*Block
	for _, b := range f.Blocks {
		if len(own[b]) == 0 {
			u.Dropped = append(u.Dropped, b.Reason)
			continue
		}
		avoid := slices.Clone(others)
		avoid = append(avoid, u.Unexplained...)
		for other, names := range own {
			if other != b {
				avoid = append(avoid, names...)
			}
		}
		b.Patterns = pattern.Cover(own[b], avoid)
		u.Cases[b] = len(own[b])
		kept = append(kept, b)
	}
	f.Blocks = kept
	return u
}

// selecting is the first block with a selector matching name, or nil.
func (f *File) selecting(name string) *Block {
	for _, b := range f.Blocks {
		if pattern.MatchAny(b.Selectors, name) {
			return b
		}
	}
	return nil
}

// Patterns is every pattern of the list.
func (f *File) Patterns() []string {
	var all []string
	for _, b := range f.Blocks {
		all = append(all, b.Patterns...)
	}
	return all
}
