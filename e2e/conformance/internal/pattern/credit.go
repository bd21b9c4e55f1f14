package pattern

import "strings"

// credited returns the patterns the runner credits with matching at least
// one of names. The runner puts all its patterns in one trie and, for
// each name, follows the first branch that matches (a literal component
// before "*", "*" before "**"), crediting only the pattern at its end; it
// refuses a pattern credited with no name ("unmatched and possibly
// invalid"), so a pattern whose names all go to other patterns first must
// go.
func credited(patterns, names []string) map[string]bool {
	root := &node{}
	for _, p := range patterns {
		root.add(strings.Split(p, "/"), p)
	}
	got := map[string]bool{}
	for _, name := range names {
		if p, ok := root.first(strings.Split(name, "/")); ok {
			got[p] = true
		}
	}
	return got
}

// A node is a node of the runner's trie of patterns: pattern is the
// pattern that ends there, if any.
type node struct {
	pattern  string
	present  bool
	children map[string]*node
}

func (n *node) add(components []string, pattern string) {
	if len(components) == 0 {
		n.present, n.pattern = true, pattern
		return
	}
	if n.children == nil {
		n.children = map[string]*node{}
	}
	child := n.children[components[0]]
	if child == nil {
		child = &node{}
		n.children[components[0]] = child
	}
	child.add(components[1:], pattern)
}

// first is the pattern the runner credits for a name's components, in
// the runner's order (connectconformance v1.0.7, testTrie.match).
func (n *node) first(c []string) (string, bool) {
	if len(c) == 0 {
		if n.present {
			return n.pattern, true
		}
		if child := n.children["**"]; child != nil && child.present {
			return child.pattern, true
		}
		return "", false
	}
	for _, key := range []string{c[0], "*"} {
		if child := n.children[key]; child != nil {
			if p, ok := child.first(c[1:]); ok {
				return p, true
			}
		}
	}
	child := n.children["**"]
	if child == nil {
		return "", false
	}
	for rest := c; ; rest = rest[1:] {
		if p, ok := child.first(rest); ok {
			return p, true
		}
		if len(rest) == 0 {
			return "", false
		}
	}
}
