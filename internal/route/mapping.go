package route

// A mapping is a collection of key-value pairs whose keys are unique. It
// keeps up to maxSlice pairs in a slice, where a linear search beats
// hashing, and switches to a map beyond that. It does not allocate on
// find. (This is net/http's mapping, kept for the same reason: most trie
// nodes have a handful of literal children, a few have thousands.)
type mapping[K comparable, V any] struct {
	s []entry[K, V] // used while the mapping is small
	m map[K]V       // used once it has grown past maxSlice
}

type entry[K comparable, V any] struct {
	key   K
	value V
}

// maxSlice is the number of pairs a mapping keeps in its slice (see
// BenchmarkFindChild).
const maxSlice = 8

// add adds a key-value pair. The key must not already be present.
func (h *mapping[K, V]) add(k K, v V) {
	if h.m == nil && len(h.s) < maxSlice {
		h.s = append(h.s, entry[K, V]{k, v})
		return
	}
	if h.m == nil {
		h.m = make(map[K]V, 2*maxSlice)
		for _, e := range h.s {
			h.m[e.key] = e.value
		}
		h.s = nil
	}
	h.m[k] = v
}

// find returns the value for k, or the zero V and false.
func (h *mapping[K, V]) find(k K) (v V, found bool) {
	if h.m != nil {
		v, found = h.m[k]
		return v, found
	}
	for _, e := range h.s {
		if e.key == k {
			return e.value, true
		}
	}
	return v, false
}

// len returns the number of pairs.
func (h *mapping[K, V]) len() int {
	if h.m != nil {
		return len(h.m)
	}
	return len(h.s)
}

// eachPair calls f for each pair, in no particular order, until f returns
// false.
func (h *mapping[K, V]) eachPair(f func(k K, v V) bool) {
	if h.m != nil {
		for k, v := range h.m {
			if !f(k, v) {
				return
			}
		}
		return
	}
	for _, e := range h.s {
		if !f(e.key, e.value) {
			return
		}
	}
}
