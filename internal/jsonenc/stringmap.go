package jsonenc

import (
	"slices"
	"strings"
	"sync"
)

// stringEntry is one entry of a map<string, string>.
type stringEntry struct{ key, value string }

// smallMap is the most entries appendStringMap sorts on the stack.
const smallMap = 8

var entryPool = sync.Pool{New: func() any { return new([]stringEntry) }}

// appendStringMap writes a map<string, string> in protojson's order: keys
// sorted by their bytes. The entries are gathered with their values (no
// lookups afterwards); a small map's are sorted in an array on the stack,
// a larger one's in a pooled slice.
func (e *Encoder) appendStringMap(b []byte, mp map[string]string, f *field) ([]byte, error) {
	if len(mp) <= smallMap {
		var arr [smallMap]stringEntry
		entries := arr[:0]
		for k, v := range mp {
			// Insertion sort: at most smallMap entries.
			i := len(entries)
			entries = append(entries, stringEntry{})
			for ; i > 0 && entries[i-1].key > k; i-- {
				entries[i] = entries[i-1]
			}
			entries[i] = stringEntry{k, v}
		}
		return e.appendStringEntries(b, entries, f)
	}
	ep := entryPool.Get().(*[]stringEntry)
	entries := slices.Grow((*ep)[:0], len(mp))
	size := 2
	for k, v := range mp {
		entries = append(entries, stringEntry{k, v})
		size += len(k) + len(v) + 6 // quotes, colon, comma
	}
	// Room for the whole object at once (more only for escapes), rather
	// than growing by a quarter at a time past a few kilobytes.
	b = slices.Grow(b, min(size, max(e.max-len(b), 0)))
	slices.SortFunc(entries, func(x, y stringEntry) int { return strings.Compare(x.key, y.key) })
	b, err := e.appendStringEntries(b, entries, f)
	clear(entries)
	if cap(entries) <= 4096 { // a very large map's entries are not kept
		*ep = entries[:0]
		entryPool.Put(ep)
	}
	return b, err
}

// appendStringEntries writes sorted entries as a JSON object.
func (e *Encoder) appendStringEntries(b []byte, entries []stringEntry, f *field) ([]byte, error) {
	b = append(b, '{')
	var err error
	for i := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		if e.over(b) {
			return b, ErrTooLarge
		}
		if b, err = appendString(b, entries[i].key); err != nil {
			return b, errInvalidUTF8(f.fd.MapKey().FullName())
		}
		b = append(b, ':')
		if b, err = appendString(b, entries[i].value); err != nil {
			return b, errInvalidUTF8(f.value.FullName())
		}
	}
	return append(b, '}'), nil
}
