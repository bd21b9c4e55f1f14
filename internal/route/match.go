package route

import (
	"slices"
	"strings"
)

// Match is the result of [Tree.Match]: the entry that matched and where
// its variables are in the request path.
type Match[V any] struct {
	// Entry is the entry that matched, nil after a failed match.
	Entry *Entry[V]

	path  string // the request path without trailing empty segments and verb
	deep  int    // index of the template's "**" segment, or -1
	deepN int    // number of request segments the "**" consumed
}

// Match finds the most specific entry for method and path and reports
// whether there is one. path is the escaped request path
// (r.URL.EscapedPath()), without the query. On success it sets *m to
// describe the match; on failure it sets *m to the zero Match, and
// [Tree.Allowed] tells whether another method would have matched. With
// t.EncodedSlashFallback, a path that matches nothing for method and
// holds an encoded slash is matched again with it decoded.
//
// Match does not allocate, except to decode the slashes of a fallback.
// Its cost grows with the length of the path and with the branches of the
// trie the path can enter (a literal, "*" and "**" at each segment), not
// with the number of entries.
func (t *Tree[V]) Match(method, path string, m *Match[V]) bool {
	if t.match(method, path, m) {
		return true
	}
	if t.EncodedSlashFallback {
		if p, ok := DecodeSlashes(path); ok && t.match(method, p, m) {
			return true
		}
	}
	*m = Match[V]{}
	return false
}

// match is Match without the fallback; it leaves *m as it was when it
// finds nothing.
func (t *Tree[V]) match(method, path string, m *Match[V]) bool {
	p, verb, ok := t.split(path)
	if !ok {
		return false
	}
	r, n := t.root.match(method, verb, p)
	if r == nil {
		return false
	}
	*m = Match[V]{Entry: r.entry, path: p, deep: r.deep, deepN: n}
	return true
}

// RawVar returns the request text that variable i of the matched
// template (m.Entry.Template.Variables[i]) covers, still percent-encoded:
// one segment, or several joined by "/". It is a substring of the request
// path, so RawVar does not allocate. A "**" that matched no segments
// contributes nothing: /v1/files/{name=**} on /v1/files yields "". The
// request's verb is never part of a variable. RawVar panics if i is out
// of range.
func (m *Match[V]) RawVar(i int) string {
	v := m.Entry.Template.Variables[i]
	start, end := v.Start, v.End
	if m.deep >= 0 {
		// Template segments after the "**" sit deepN-1 request segments
		// further on.
		if start > m.deep {
			start += m.deepN - 1
		}
		if end > m.deep {
			end += m.deepN - 1
		}
	}
	if start >= end {
		return ""
	}
	return segments(m.path, start, end)
}

// segments returns segments [start, end) of p, a path that begins with
// "/", joined by "/". Segment i follows the i-th slash (counting from 0).
func segments(p string, start, end int) string {
	begin, n := 0, -1
	for i := 0; ; {
		j := strings.IndexByte(p[i:], '/')
		if j < 0 {
			return p[begin:]
		}
		i += j
		n++
		if n == start {
			begin = i + 1
		}
		if n == end {
			return p[begin:i]
		}
		i++
	}
}

// Allowed returns, sorted, the methods of the entries whose templates
// match path (and its verb), or nil if there are none. It is meant for
// the error path when [Tree.Match] fails: a non-empty result means the
// path exists but not for the request's method (HTTP 405, with the result
// as the Allow header). The result contains "*" when an entry for any
// method matches; Match then succeeds for every method. With
// t.EncodedSlashFallback, the methods the path matches with its encoded
// slashes decoded are added, since Match falls back to them. Unlike
// Match, Allowed visits every matching branch of the trie and allocates.
func (t *Tree[V]) Allowed(path string) []string {
	var ms []string
	t.allowed(path, &ms)
	if t.EncodedSlashFallback {
		if p, ok := DecodeSlashes(path); ok {
			t.allowed(p, &ms)
		}
	}
	slices.Sort(ms)
	return slices.Compact(ms)
}

// allowed appends to ms the methods of the entries whose templates match
// path.
func (t *Tree[V]) allowed(path string, ms *[]string) {
	if p, verb, ok := t.split(path); ok {
		t.root.allowed(verb, p, ms)
	}
}

// split prepares a request path for matching: it drops trailing empty
// segments (unless t.StrictTrailingSlash) and the verb. It returns what
// remains, which is "" for zero segments and otherwise "/" followed by
// the segments separated by "/", and the verb, which is "" when there is
// none. ok is false for a path that cannot match.
func (t *Tree[V]) split(path string) (p, verb string, ok bool) {
	if path == "" {
		return "", "", true
	}
	if path[0] != '/' {
		return "", "", false
	}
	if t.StrictTrailingSlash {
		if path == "/" {
			return "", "", true
		}
	} else {
		i := len(path)
		for i > 0 && path[i-1] == '/' {
			i--
		}
		if i == 0 {
			return "", "", true
		}
		path = path[:i]
	}
	if t.maxVerb == 0 {
		return path, "", true
	}
	// The verb is the longest registered suffix of the last segment that
	// follows a colon, so try the colons from left to right, skipping the
	// suffixes that are too long to be verbs.
	last := strings.LastIndexByte(path, '/') + 1
	for i := max(last, len(path)-t.maxVerb-1); i < len(path); i++ {
		j := strings.IndexByte(path[i:], ':')
		if j < 0 {
			break
		}
		i += j
		if _, ok := t.verbs[path[i+1:]]; ok {
			return path[:i], path[i+1:], true
		}
	}
	return path, "", true
}

// next splits rest, a non-empty path remainder that begins with "/", into
// its first segment and what follows it.
func next(rest string) (seg, tail string) {
	i := strings.IndexByte(rest[1:], '/')
	if i < 0 {
		return rest[1:], ""
	}
	return rest[1 : i+1], rest[i+1:]
}

// match returns the most specific route under n for method, verb and
// rest, the part of the path not yet matched ("" or "/" followed by
// segments), with the number of segments a "**" consumed. It tries a
// literal child, then the "*" child, then the "**" child, backtracking
// when a child finds nothing. Recursion is bounded by the depth of the
// trie; a "**" is matched by a loop (see matchDeep).
func (n *node[V]) match(method, verb, rest string) (*route[V], int) {
	if rest == "" {
		if r := n.lookup(method, verb); r != nil {
			return r, 0
		}
		if n.deep != nil {
			// A final "**" matches zero segments.
			if r := n.deep.lookup(method, verb); r != nil {
				return r, 0
			}
		}
		return nil, 0
	}
	seg, tail := next(rest)
	if c, ok := n.lit.find(seg); ok {
		if r, k := c.match(method, verb, tail); r != nil {
			return r, k
		}
	}
	if n.wild != nil {
		if r, k := n.wild.match(method, verb, tail); r != nil {
			return r, k
		}
	}
	if n.deep != nil {
		return n.deep.matchDeep(method, verb, rest)
	}
	return nil, 0
}

// matchDeep matches rest, which has at least one segment, against d, a
// "**" node: the "**" consumes one or more leading segments and the
// segments below d (literals and "*", with backtracking) must match all
// the others. Fewer consumed segments are tried first; d's own routes (a
// final "**") consume everything, so they come last. Only the last
// d.maxSuffix segments can be matched below d, so the loop starts there.
func (d *node[V]) matchDeep(method, verb, rest string) (*route[V], int) {
	total := strings.Count(rest, "/")
	m := min(d.maxSuffix, total-1) // segments left for below d
	tail := lastSegments(rest, m)
	for {
		if r, _ := d.match(method, verb, tail); r != nil {
			return r, total - m
		}
		if m == 0 {
			return nil, 0
		}
		_, tail = next(tail)
		m--
	}
}

// lastSegments returns the last m segments of rest, with their leading
// "/"; rest has more than m segments.
func lastSegments(rest string, m int) string {
	i := len(rest)
	for ; m > 0; m-- {
		i = strings.LastIndexByte(rest[:i], '/')
	}
	return rest[i:]
}

// allowed appends to ms the methods of every route under n whose
// template matches rest and whose verb is verb. It explores the same
// branches as match, without stopping at the first.
func (n *node[V]) allowed(verb, rest string, ms *[]string) {
	if rest == "" {
		n.methods(verb, ms)
		if n.deep != nil {
			n.deep.methods(verb, ms)
		}
		return
	}
	seg, tail := next(rest)
	if c, ok := n.lit.find(seg); ok {
		c.allowed(verb, tail, ms)
	}
	if n.wild != nil {
		n.wild.allowed(verb, tail, ms)
	}
	if d := n.deep; d != nil {
		m := min(d.maxSuffix, strings.Count(rest, "/")-1)
		for tail := lastSegments(rest, m); ; m-- {
			d.allowed(verb, tail, ms)
			if m == 0 {
				break
			}
			_, tail = next(tail)
		}
	}
}

// methods appends the methods of n's routes for verb to ms.
func (n *node[V]) methods(verb string, ms *[]string) {
	for _, r := range n.routes {
		if r.verb == verb {
			*ms = append(*ms, r.entry.Method)
		}
	}
}
