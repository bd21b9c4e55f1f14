package route

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/protorest/protorest/internal/httprule"
)

// Tree is a segment trie of routes.
//
// The zero value is an empty tree that ignores trailing slashes, ready to
// use. Add must not be called concurrently with itself or with any other
// method; once adding is done, Match, Allowed and String are safe for
// concurrent use.
type Tree[V any] struct {
	// StrictTrailingSlash keeps trailing empty segments of request paths:
	// /v1/probes/ then has the segments "v1", "probes" and "", and matches
	// /v1/probes/{name} with name "" rather than /v1/probes. The default
	// ignores them.
	StrictTrailingSlash bool

	// EncodedSlashFallback routes, as grpc-gateway's default (Legacy)
	// unescaping does, a request path that matches no entry for its
	// method and holds %2F or %2f: the path is matched again with those
	// escapes decoded to "/" (see the package documentation). The
	// default keeps %2F as data, always.
	EncodedSlashFallback bool

	root node[V]

	// verbs is the set of verbs that templates use, and maxVerb the length
	// of the longest; see Tree.split.
	verbs   map[string]struct{}
	maxVerb int
}

// Entry is one route: requests with Method whose path matches Template
// are served by Value.
type Entry[V any] struct {
	// Method is the HTTP method, compared exactly and case-sensitively
	// ("GET", "PATCH", a custom kind), or "*" for any method.
	Method string
	// Template is the parsed path template. It must not be modified after
	// the entry is added.
	Template *httprule.Template
	// Name says who registered the entry, for error messages: a method's
	// full name such as "conf.v1.Probes.GetProbe", or "HandlePath".
	Name string
	// Value is the caller's payload; the tree never looks at it.
	Value V
}

// String describes e for messages: method, template and, when set, the
// name, as in "GET /v1/{id} (pkg.Svc.M)".
func (e *Entry[V]) String() string {
	s := e.Method + " " + e.Template.String()
	if e.Name != "" {
		s += " (" + e.Name + ")"
	}
	return s
}

// A node is one position in the trie: the templates that reach it share
// a shape prefix. No "**" node lies below a "**" node: a template has one
// "**" at most.
type node[V any] struct {
	lit  mapping[string, *node[V]] // literal children, by raw segment text
	wild *node[V]                  // the "*" child
	deep *node[V]                  // the "**" child

	// routes are the entries whose template ends here, one per method and
	// verb, sorted by verb and then method.
	routes []*route[V]

	// maxSuffix is, for a "**" node, the largest number of segments that
	// follow the "**" in a template.
	maxSuffix int
}

// A route is an entry with what matching needs precomputed.
type route[V any] struct {
	entry *Entry[V]
	verb  string
	deep  int // index of the "**" segment in the template, or -1
}

// lookup returns the route of n for the request's method and verb: the
// one with that exact method if there is one, else the one with method
// "*", else nil.
func (n *node[V]) lookup(method, verb string) *route[V] {
	var anyMethod *route[V]
	for _, r := range n.routes {
		if r.verb != verb {
			continue
		}
		switch r.entry.Method {
		case method:
			return r
		case "*":
			anyMethod = r
		}
	}
	return anyMethod
}

// Add registers e. It returns a [*ConflictError] when an entry with the
// same method, the same verb and the same shape was added before (see the
// package documentation), and another error when e is incomplete or its
// template breaks the invariants of [httprule.Template]. A failed Add
// leaves the tree as it was. The tree keeps e, which must not be modified
// afterwards.
func (t *Tree[V]) Add(e *Entry[V]) error {
	if err := validate(e); err != nil {
		return err
	}
	tmpl := e.Template
	n := &t.root
	var deep *node[V] // the "**" node on the way, if any
	for _, s := range tmpl.Segments {
		n = n.child(s)
		if s.Kind == httprule.DeepWildcard {
			deep = n
		}
	}
	for _, r := range n.routes {
		if r.entry.Method == e.Method && r.verb == tmpl.Verb {
			return &ConflictError{
				New:      e.String(),
				Existing: r.entry.String(),
				Method:   e.Method,
				Path:     examplePath(tmpl),
			}
		}
	}
	r := &route[V]{entry: e, verb: tmpl.Verb, deep: tmpl.DeepIndex()}
	if deep != nil {
		deep.maxSuffix = max(deep.maxSuffix, len(tmpl.Segments)-r.deep-1)
	}
	i, _ := slices.BinarySearchFunc(n.routes, r, compareRoutes)
	n.routes = slices.Insert(n.routes, i, r)
	if v := tmpl.Verb; v != "" {
		if t.verbs == nil {
			t.verbs = make(map[string]struct{})
		}
		t.verbs[v] = struct{}{}
		t.maxVerb = max(t.maxVerb, len(v))
	}
	return nil
}

// compareRoutes orders the routes of a node by verb and then method.
func compareRoutes[V any](a, b *route[V]) int {
	return cmp.Or(cmp.Compare(a.verb, b.verb), cmp.Compare(a.entry.Method, b.entry.Method))
}

// child returns the child of n for s, creating it if needed.
func (n *node[V]) child(s httprule.Segment) *node[V] {
	switch s.Kind {
	case httprule.Wildcard:
		if n.wild == nil {
			n.wild = new(node[V])
		}
		return n.wild
	case httprule.DeepWildcard:
		if n.deep == nil {
			n.deep = new(node[V])
		}
		return n.deep
	}
	c, ok := n.lit.find(s.Value)
	if !ok {
		c = new(node[V])
		n.lit.add(s.Value, c)
	}
	return c
}

// errInvalid is wrapped by the errors Add returns for entries it cannot
// route.
var errInvalid = errors.New("route: invalid entry")

// validate checks what matching relies on. httprule.Parse produces only
// valid templates; this guards against hand-built ones.
func validate[V any](e *Entry[V]) error {
	if e == nil || e.Template == nil {
		return fmt.Errorf("%w: no template", errInvalid)
	}
	// The template may be too broken for Template.String.
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w %q (%s): %s", errInvalid, e.Method, e.Name, fmt.Sprintf(format, args...))
	}
	if e.Method == "" {
		return bad("no method")
	}
	tmpl := e.Template
	if strings.Contains(tmpl.Verb, "/") {
		return bad("verb %q contains %q", tmpl.Verb, "/")
	}
	deep := -1
	for i, s := range tmpl.Segments {
		switch s.Kind {
		case httprule.Literal:
			if s.Value == "" || strings.Contains(s.Value, "/") {
				return bad("segment %d: literal %q is empty or contains %q", i, s.Value, "/")
			}
		case httprule.Wildcard:
		case httprule.DeepWildcard:
			if deep >= 0 {
				return bad("segment %d: more than one %q", i, "**")
			}
			deep = i
		default:
			return bad("segment %d: unknown kind %d", i, s.Kind)
		}
	}
	end := 0
	for i, v := range tmpl.Variables {
		if v.Start < end || v.End <= v.Start || v.End > len(tmpl.Segments) {
			return bad("variable %d covers segments [%d,%d), out of order or out of range", i, v.Start, v.End)
		}
		end = v.End
	}
	return nil
}
