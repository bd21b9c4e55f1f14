package route

import (
	"cmp"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/protorest/protorest/internal/httprule"
)

// reference is a matcher written the obvious way, to check Tree against:
// it splits the path with strings.Split, tries every entry and ranks the
// ones that match.
type reference struct {
	strict   bool
	fallback bool
	entries  []*Entry[string]
	verbs    []string // longest first
}

func newReference(tree *Tree[string], entries []*Entry[string]) *reference {
	r := &reference{strict: tree.StrictTrailingSlash, fallback: tree.EncodedSlashFallback, entries: entries}
	for _, e := range entries {
		if v := e.Template.Verb; v != "" && !slices.Contains(r.verbs, v) {
			r.verbs = append(r.verbs, v)
		}
	}
	slices.SortFunc(r.verbs, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return r
}

func (r *reference) split(path string) (segs []string, verb string, ok bool) {
	if path == "" {
		return nil, "", true
	}
	if path[0] != '/' {
		return nil, "", false
	}
	if r.strict {
		if path == "/" {
			return nil, "", true
		}
	} else {
		path = strings.TrimRight(path, "/")
		if path == "" {
			return nil, "", true
		}
	}
	last := path[strings.LastIndex(path, "/")+1:]
	for _, v := range r.verbs {
		if strings.HasSuffix(last, ":"+v) {
			path, verb = path[:len(path)-len(v)-1], v
			break
		}
	}
	return strings.Split(path[1:], "/"), verb, true
}

// refMatch reports whether tmpl matches segs, with the rank of the match
// (lower is more specific: per segment literal 0, "*" 1, "**" 2 followed by
// the number of segments it takes, then -1 for the end) and the number of
// segments "**" takes.
func refMatch(tmpl *httprule.Template, segs []string) (rank []int, k int, ok bool) {
	ts := tmpl.Segments
	d := tmpl.DeepIndex()
	if d < 0 {
		if len(ts) != len(segs) {
			return nil, 0, false
		}
		d, k = len(ts), 0
	} else {
		suffix := len(ts) - d - 1
		k = len(segs) - d - suffix
		if k < 0 || suffix > 0 && k < 1 {
			return nil, 0, false
		}
	}
	for i, s := range ts {
		j := i
		if i > d {
			j = i + k - 1
		}
		switch s.Kind {
		case httprule.Literal:
			if segs[j] != s.Value {
				return nil, 0, false
			}
			rank = append(rank, 0)
		case httprule.Wildcard:
			rank = append(rank, 1)
		case httprule.DeepWildcard:
			rank = append(rank, 2, k)
		}
	}
	return append(rank, -1), k, true
}

// lookup returns the entry that must match, its variables, and the
// methods of all entries that match the path: as written, and with the
// fallback, with its encoded slashes decoded too.
func (r *reference) lookup(method, path string) (best *Entry[string], vars []string, allowed []string) {
	best, vars, allowed = r.lookupPath(method, path)
	if !r.fallback {
		return best, vars, allowed
	}
	decoded := refDecodeSlashes(path)
	if decoded == path {
		return best, vars, allowed
	}
	fbest, fvars, fallowed := r.lookupPath(method, decoded)
	if best == nil {
		best, vars = fbest, fvars
	}
	allowed = slices.Concat(allowed, fallowed)
	slices.Sort(allowed)
	return best, vars, slices.Compact(allowed)
}

// refDecodeSlashes decodes the %2F and %2f escapes of path, walking it
// escape by escape.
func refDecodeSlashes(path string) string {
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		if path[i] == '%' && i+2 < len(path) {
			if c, err := strconv.ParseUint(path[i+1:i+3], 16, 8); err == nil {
				if c == '/' {
					b.WriteByte('/')
				} else {
					b.WriteString(path[i : i+3])
				}
				i += 2
				continue
			}
		}
		b.WriteByte(path[i])
	}
	return b.String()
}

// lookupPath is lookup without the fallback.
func (r *reference) lookupPath(method, path string) (best *Entry[string], vars []string, allowed []string) {
	segs, verb, ok := r.split(path)
	if !ok {
		return nil, nil, nil
	}
	var bestRank []int
	var bestK int
	for _, e := range r.entries {
		if e.Template.Verb != verb {
			continue
		}
		rank, k, ok := refMatch(e.Template, segs)
		if !ok {
			continue
		}
		allowed = append(allowed, e.Method)
		if e.Method != method && e.Method != "*" {
			continue
		}
		if e.Method == "*" {
			rank = append(rank, 1) // an exact method wins on the same shape
		} else {
			rank = append(rank, 0)
		}
		if best == nil || slices.Compare(rank, bestRank) < 0 {
			best, bestRank, bestK = e, rank, k
		}
	}
	slices.Sort(allowed)
	allowed = slices.Compact(allowed)
	if best == nil {
		return nil, nil, allowed
	}
	d := best.Template.DeepIndex()
	for _, v := range best.Template.Variables {
		var parts []string
		for i := v.Start; i < v.End; i++ {
			switch {
			case d < 0 || i < d:
				parts = append(parts, segs[i])
			case i == d:
				parts = append(parts, segs[d:d+bestK]...)
			default:
				parts = append(parts, segs[i+bestK-1])
			}
		}
		vars = append(vars, strings.Join(parts, "/"))
	}
	return best, vars, allowed
}

// fuzzTrees are the trees FuzzMatch checks, with their references: with
// and without StrictTrailingSlash, each without and then with
// EncodedSlashFallback.
func fuzzTrees(tb testing.TB) (trees []*Tree[string], refs []*reference) {
	for _, strict := range []bool{false, true} {
		for _, fallback := range []bool{false, true} {
			rules := slices.Concat(fixtureA, fixtureB, fixtureD, fixtureExtra, fixtureAfterDeep, fixtureGatewayVerbs)
			if strict {
				rules = append(rules, fixtureC[0]) // GET /**
			}
			tree := &Tree[string]{StrictTrailingSlash: strict, EncodedSlashFallback: fallback}
			var entries []*Entry[string]
			for _, r := range rules {
				e := newEntry(tb, r)
				if err := tree.Add(e); err != nil {
					tb.Fatal(err)
				}
				entries = append(entries, e)
			}
			trees = append(trees, tree)
			refs = append(refs, newReference(tree, entries))
		}
	}
	return trees, refs
}

// FuzzMatch matches random requests against fixed trees and checks the
// result against the reference matcher, RawVar against the path, Allowed
// against Match, and the fallback's trees against their twins.
func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{
		{"GET", "/v1/probes/abc"},
		{"PUT", "/v1/probes/special/"},
		{"POST", "/v1/probes/a:b:archive"},
		{"GET", "/v1/tree/a/meta/b/meta"},
		{"GET", "/v6/x:verb2/y:verb"},
		{"PATCH", "/v5/abc"},
		{"GET", "/c//x"},
		{"POST", "/:do"},
		{"PUT", "/d/1/m/n"},
		{"POST", "/x/a:b:custom:custom"},
		{"GET", "/a/b/1/2/y/z/foo"},
		{"HEAD", "//"},
		{"GET", "/v1/files/a%2Fb//c/"},
		{"GET", "/v1/shelves%2F1%2Fbooks%2F2"},
		{"POST", "/v1/probes%2Fabc:archive"},
		{"POST", "/v1/probes%2Fabc%3Aarchive"},
		{"GET", "/v1%2Fprobes%2F%252F"},
		{"GET", "/e/a/x/c"},
		{"POST", "/e/a/b:go"},
		{"GET", "/f/1/2/3/s/4"},
		{"GET", "/g/abc::v"},
		{"GET", "/g/x::a"},
		{"GET", "/g/*:b:c"},
		{"GET", "/h/a:"},
	} {
		f.Add(s[0], s[1])
	}
	trees, refs := fuzzTrees(f)
	f.Fuzz(func(t *testing.T, method, path string) {
		checkMatch(t, trees, refs, method, path)
	})
}

// checkMatch checks Match, RawVar and Allowed on each tree against its
// reference, and against each other.
func checkMatch(t *testing.T, trees []*Tree[string], refs []*reference, method, path string) {
	for i, tree := range trees {
		var m, m2 Match[string]
		ok := tree.Match(method, path, &m)
		if ok2 := tree.Match(method, path, &m2); ok2 != ok || m != m2 {
			t.Fatalf("Match(%q, %q) is not deterministic", method, path)
		}
		want, wantVars, wantAllowed := refs[i].lookup(method, path)
		allowed := tree.Allowed(path)
		if !slices.Equal(allowed, wantAllowed) {
			t.Errorf("strict=%v: Allowed(%q) = %q, reference %q", tree.StrictTrailingSlash, path, allowed, wantAllowed)
		}
		if !ok {
			if want != nil {
				t.Fatalf("strict=%v: Match(%q, %q) failed, reference %s", tree.StrictTrailingSlash, method, path, want)
			}
			if slices.Contains(allowed, method) || slices.Contains(allowed, "*") {
				t.Fatalf("strict=%v: Match(%q, %q) failed but Allowed = %q", tree.StrictTrailingSlash, method, path, allowed)
			}
			continue
		}
		if m.Entry != want {
			t.Fatalf("strict=%v: Match(%q, %q) = %s, reference %s", tree.StrictTrailingSlash, method, path, m.Entry, want)
		}
		if m.Entry.Method != method && m.Entry.Method != "*" {
			t.Fatalf("Match(%q, %q) = %s: wrong method", method, path, m.Entry)
		}
		if !slices.Contains(allowed, m.Entry.Method) {
			t.Fatalf("Match(%q, %q) = %s, but Allowed = %q", method, path, m.Entry, allowed)
		}
		for j := range m.Entry.Template.Variables {
			v := m.RawVar(j)
			if !strings.Contains(path, v) && !strings.Contains(refDecodeSlashes(path), v) {
				t.Fatalf("Match(%q, %q) = %s: RawVar(%d) = %q is not in the path", method, path, m.Entry, j, v)
			}
			if v != wantVars[j] {
				t.Fatalf("strict=%v: Match(%q, %q) = %s: RawVar(%d) = %q, reference %q", tree.StrictTrailingSlash, method, path, m.Entry, j, v, wantVars[j])
			}
		}
	}
	checkFallback(t, trees, method, path)
}

// sameMatch reports whether a and b, matches in two trees of the same
// rules, found the same rule with the same variables.
func sameMatch(a, b *Match[string]) bool {
	if a.Entry.Method != b.Entry.Method || a.Entry.Value != b.Entry.Value {
		return false
	}
	for i := range a.Entry.Template.Variables {
		if a.RawVar(i) != b.RawVar(i) {
			return false
		}
	}
	return true
}

// checkFallback checks that the EncodedSlashFallback trees never match a
// path differently from their twins without it (the tree before each in
// trees) when the twin matches it, and match exactly as the twins do a
// path with no encoded slash.
func checkFallback(t *testing.T, trees []*Tree[string], method, path string) {
	_, encoded := DecodeSlashes(path)
	for i, tree := range trees {
		if !tree.EncodedSlashFallback {
			continue
		}
		twin := trees[i-1]
		var m, tm Match[string]
		ok, tok := tree.Match(method, path, &m), twin.Match(method, path, &tm)
		switch {
		case tok && (!ok || !sameMatch(&m, &tm)):
			t.Fatalf("strict=%v: Match(%q, %q) = %v with the fallback, %s without", tree.StrictTrailingSlash, method, path, m.Entry, tm.Entry)
		case !encoded && ok != tok:
			t.Fatalf("strict=%v: Match(%q, %q) = %v with the fallback and no encoded slash, %v without", tree.StrictTrailingSlash, method, path, m.Entry, tm.Entry)
		case !encoded && !slices.Equal(tree.Allowed(path), twin.Allowed(path)):
			t.Fatalf("strict=%v: Allowed(%q) = %q with the fallback and no encoded slash, %q without", tree.StrictTrailingSlash, path, tree.Allowed(path), twin.Allowed(path))
		}
	}
}

// fuzzVocabulary are the tokens FuzzMatchSegments builds paths from: the
// fixtures' literals, data, and verbs (tokens that begin with ":" extend
// the previous segment).
var fuzzVocabulary = []string{
	"v1", "probes", "special", "shelves", "books", "files", "tree", "meta",
	"ids", "nested", "lookup", "uploads", "download", "x", "y", "b", "d",
	"e", "v2", "v3", "v5", "v6", "v7", "c", "a", "z", "foo", "m", "n",
	"", "abc", "%2F", "%2f", "%252F", "probes%2Fabc", "shelves%2F1%2Fbooks", "%3Aarchive", "Probes", ":archive", ":search", ":rename",
	":batch", ":verb", ":verb2", ":go", ":do", ":custom", ":act", ":zzz", ":",
	"g", "h", "q", "*", "x:a", "a:", ":v", "::v", ":a", "::a", ":b:c",
}

var fuzzMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "FOO"}

// FuzzMatchSegments is FuzzMatch with requests built from the fixtures'
// own segments and verbs, which random bytes rarely spell.
func FuzzMatchSegments(f *testing.F) {
	f.Add(uint8(0), []byte{0, 1, 30})
	f.Add(uint8(1), []byte{0, 1, 30, 34})
	f.Add(uint8(0), []byte{0, 6, 24, 7, 17, 7})
	f.Add(uint8(0), []byte{22, 13, 38, 16, 38})
	f.Add(uint8(2), []byte{20, 24, 128})
	trees, refs := fuzzTrees(f)
	f.Fuzz(func(t *testing.T, method uint8, picks []byte) {
		var b strings.Builder
		for i, p := range picks {
			tok := fuzzVocabulary[int(p&0x7f)%len(fuzzVocabulary)]
			if !strings.HasPrefix(tok, ":") || i == 0 {
				b.WriteByte('/')
			}
			b.WriteString(tok)
			if p&0x80 != 0 {
				b.WriteByte('/')
			}
		}
		checkMatch(t, trees, refs, fuzzMethods[int(method)%len(fuzzMethods)], b.String())
	})
}

// refUnescape decodes s with strconv, leaving encoded the bytes in keep.
func refUnescape(s, keep string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+3 > len(s) {
			return "", errors.New("short")
		}
		c, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", err
		}
		if strings.IndexByte(keep, byte(c)) >= 0 {
			b.WriteString(s[i : i+3])
		} else {
			b.WriteByte(byte(c))
		}
		i += 2
	}
	return b.String(), nil
}

// FuzzUnescape checks the unescape functions against net/url and against
// refUnescape, and that escaping then unescaping is the identity.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{"a%2Fb", "%E4%BD%A0", "%25", "a%2fb/c%3Fd%2B%20e", "%", "%2", "%zz", "a+b", "", "%%41", "%252F"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := UnescapeSegment(s)
		want, wantErr := url.PathUnescape(s)
		if (err != nil) != (wantErr != nil) || err == nil && got != want {
			t.Fatalf("UnescapeSegment(%q) = %q, %v; url.PathUnescape: %q, %v", s, got, err, want, wantErr)
		}
		if err != nil {
			var ee *EscapeError
			if !errors.As(err, &ee) || !errors.Is(err, ErrMalformedEscape) || !strings.HasPrefix(s[ee.Offset:], ee.Escape) || ee.Escape[0] != '%' {
				t.Fatalf("UnescapeSegment(%q): bad error %#v", s, err)
			}
		}
		if !strings.Contains(s, "%") && (err != nil || got != s) {
			t.Fatalf("UnescapeSegment(%q) = %q, %v; want it unchanged", s, got, err)
		}
		for mode, keep := range map[UnescapeMode]string{
			UnescapeAll:               "",
			UnescapeAllExceptSlash:    "/",
			UnescapeAllExceptReserved: "!#$&'()*+,/:;=?@[]",
		} {
			got, err := UnescapeMulti(s, mode)
			want, wantErr := refUnescape(s, keep)
			if (err != nil) != (wantErr != nil) || err == nil && got != want {
				t.Fatalf("UnescapeMulti(%q, %v) = %q, %v; reference %q, %v", s, mode, got, err, want, wantErr)
			}
			if err != nil && !errors.Is(err, ErrMalformedEscape) {
				t.Fatalf("UnescapeMulti(%q, %v): error %v does not match ErrMalformedEscape", s, mode, err)
			}
		}
		if got, err := UnescapeSegment(url.PathEscape(s)); err != nil || got != s {
			t.Fatalf("UnescapeSegment(url.PathEscape(%q)) = %q, %v", s, got, err)
		}
	})
}
