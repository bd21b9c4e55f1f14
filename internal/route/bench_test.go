package route

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/protorest/protorest/internal/httprule"
)

// aipKinds are the methods of an AIP-style resource; %d names the
// collection, so that each group of kinds adds a new literal.
var aipKinds = []struct{ method, template string }{
	{"GET", "/v1/{name=projects/*/topics/t%d/subscriptions/*}"},
	{"GET", "/v1/{parent=projects/*/topics/t%d}/subscriptions"},
	{"POST", "/v1/{parent=projects/*/topics/t%d}/subscriptions"},
	{"PATCH", "/v1/{subscription.name=projects/*/topics/t%d/subscriptions/*}"},
	{"DELETE", "/v1/{name=projects/*/topics/t%d/subscriptions/*}"},
	{"POST", "/v1/{name=projects/*/topics/t%d/subscriptions/*}:acknowledge"},
	{"POST", "/v1/{topic=projects/*/topics/t%d}:publish"},
	{"GET", "/v1/{name=projects/*/locations/*/r%d/*}"},
	{"GET", "/v1/{name=operations/o%d/**}"},
	{"GET", "/v1/{parent=projects/*}/t%d/{id}/{sub=**}/meta"},
}

// aipTree returns a tree of n routes and the number of the group in the
// middle.
func aipTree(b *testing.B, n int) (*Tree[int], int) {
	tree := new(Tree[int])
	for i := range n {
		k := aipKinds[i%len(aipKinds)]
		tmpl, err := httprule.Parse(fmt.Sprintf(k.template, i/len(aipKinds)))
		if err != nil {
			b.Fatal(err)
		}
		if err := tree.Add(&Entry[int]{Method: k.method, Template: tmpl, Value: i}); err != nil {
			b.Fatal(err)
		}
	}
	return tree, n / len(aipKinds) / 2
}

func BenchmarkMatch(b *testing.B) {
	for _, n := range []int{1, 50, 500, 5000} {
		b.Run("routes="+strconv.Itoa(n), func(b *testing.B) {
			tree, mid := aipTree(b, n)
			path := "/v1/projects/my-project/topics/t" + strconv.Itoa(mid) + "/subscriptions/sub-1"
			var m Match[int]
			if !tree.Match("GET", path, &m) || m.RawVar(0) != path[len("/v1/"):] {
				b.Fatalf("Match(GET %s) = %v", path, m.Entry)
			}
			b.ReportAllocs()
			for b.Loop() {
				tree.Match("GET", path, &m)
				_ = m.RawVar(0)
			}
		})
	}
}

// BenchmarkMatchKinds matches other kinds of request against 5000 routes:
// a verb, a "**" followed by literals, and a path with no route.
func BenchmarkMatchKinds(b *testing.B) {
	tree, mid := aipTree(b, 5000)
	g := strconv.Itoa(mid)
	for _, bc := range []struct {
		name, method, path string
		ok                 bool
	}{
		{"verb", "POST", "/v1/projects/my-project/topics/t" + g + "/subscriptions/sub-1:acknowledge", true},
		{"deep", "GET", "/v1/operations/o" + g + "/a/b/c", true},
		{"deep-suffix", "GET", "/v1/projects/p/t" + g + "/7/a/b/c/meta", true},
		{"miss", "GET", "/v1/projects/my-project/topics/nope/subscriptions/sub-1", false},
		{"wrong-method", "PUT", "/v1/projects/my-project/topics/t" + g + "/subscriptions/sub-1", false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var m Match[int]
			if tree.Match(bc.method, bc.path, &m) != bc.ok {
				b.Fatalf("Match(%s %s) = %v, want %v", bc.method, bc.path, m.Entry, bc.ok)
			}
			b.ReportAllocs()
			for b.Loop() {
				if tree.Match(bc.method, bc.path, &m) {
					for i := range m.Entry.Template.Variables {
						_ = m.RawVar(i)
					}
				}
			}
		})
	}
}

// BenchmarkMatchEncodedSlashFallback matches against 5000 routes with
// Tree.EncodedSlashFallback on: a path that matches as written and a
// miss without an encoded slash cost what they cost without it; a path
// whose slashes a client escaped matches on the second try, after one
// allocation (the decoded path).
func BenchmarkMatchEncodedSlashFallback(b *testing.B) {
	tree, mid := aipTree(b, 5000)
	tree.EncodedSlashFallback = true
	g := strconv.Itoa(mid)
	for _, bc := range []struct {
		name, path string
		ok         bool
	}{
		{"as-written", "/v1/projects/my-project/topics/t" + g + "/subscriptions/sub-1", true},
		{"miss", "/v1/projects/my-project/topics/nope/subscriptions/sub-1", false},
		{"escaped", "/v1/projects%2Fmy-project%2Ftopics%2Ft" + g + "%2Fsubscriptions%2Fsub-1", true},
		{"escaped-miss", "/v1/projects%2Fmy-project%2Ftopics%2Fnope%2Fsubscriptions%2Fsub-1", false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var m Match[int]
			if tree.Match("GET", bc.path, &m) != bc.ok {
				b.Fatalf("Match(GET %s) = %v, want %v", bc.path, m.Entry, bc.ok)
			}
			b.ReportAllocs()
			for b.Loop() {
				tree.Match("GET", bc.path, &m)
			}
		})
	}
}

func BenchmarkUnescape(b *testing.B) {
	for _, bc := range []struct {
		name string
		in   string
		mode UnescapeMode
		seg  bool
	}{
		{"segment/plain", "subscription-12345", 0, true},
		{"segment/escaped", "a%2Fb%20c%E4%BD%A0", 0, true},
		{"multi/plain", "projects/p1/topics/t1/subscriptions/s1", UnescapeAllExceptSlash, false},
		{"multi/kept", "files/a%2Fb/c%2Fd", UnescapeAllExceptSlash, false},
		{"multi/except-slash", "files/a%2Fb/c%3Fd%20e", UnescapeAllExceptSlash, false},
		{"multi/except-reserved", "files/a%2Fb/c%3Fd%20e", UnescapeAllExceptReserved, false},
		{"multi/all", "files/a%2Fb/c%3Fd%20e", UnescapeAll, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if bc.seg {
					_, _ = UnescapeSegment(bc.in)
				} else {
					_, _ = UnescapeMulti(bc.in, bc.mode)
				}
			}
		})
	}
}

// BenchmarkFindChild measures literal children around the slice-to-map
// threshold (see maxSlice).
func BenchmarkFindChild(b *testing.B) {
	for _, n := range []int{2, 8, 9, 32} {
		b.Run("children="+strconv.Itoa(n), func(b *testing.B) {
			var h mapping[string, int]
			for i := range n {
				h.add("collection"+strconv.Itoa(i), i)
			}
			key := "collection" + strconv.Itoa(n-1)
			b.ReportAllocs()
			for b.Loop() {
				h.find(key)
			}
		})
	}
}
