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

// Update regenerates the blocks' patterns from a run that named every
// case (--known-failing "**"): failing and passing are the names of its
// cases. Each block's patterns match its failing cases and no other
// case, passing or failing. Blocks left with no case are removed. A
// failing case no block selects is Unexplained, and matched by no
// pattern.
func (f *File) Update(failing, passing []string) Update {
	u := Update{Cases: map[*Block]int{}}
	own := map[*Block][]string{}
	for _, name := range slices.Sorted(slices.Values(failing)) {
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
		avoid := slices.Clone(passing)
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
