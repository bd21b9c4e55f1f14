package bind

// smallTable is the number of entries up to which a nameTable is a slice
// scanned linearly rather than a map.
const smallTable = 8

// nameTable maps names to values. It is built at registration and only
// read afterwards, so concurrent lookups are safe. Small tables are
// slices, which beat a map's hashing for a handful of short names.
type nameTable[V any] struct {
	keys []string
	vals []V
	m    map[string]V
}

// add inserts name unless it is present, reporting whether it was added.
func (t *nameTable[V]) add(name string, v V) bool {
	if _, ok := t.get(name); ok {
		return false
	}
	if t.m != nil {
		t.m[name] = v
		return true
	}
	if len(t.keys) < smallTable {
		t.keys = append(t.keys, name)
		t.vals = append(t.vals, v)
		return true
	}
	t.m = make(map[string]V, 2*smallTable)
	for i, k := range t.keys {
		t.m[k] = t.vals[i]
	}
	t.m[name] = v
	t.keys, t.vals = nil, nil
	return true
}

// get returns the value stored under name.
func (t *nameTable[V]) get(name string) (V, bool) {
	if t.m != nil {
		v, ok := t.m[name]
		return v, ok
	}
	for i, k := range t.keys {
		if k == name {
			return t.vals[i], true
		}
	}
	var zero V
	return zero, false
}
