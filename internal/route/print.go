package route

import (
	"slices"
	"strings"
)

// String prints the trie, one node per line, each indented two spaces
// deeper than its parent: the root "/", then literal children in byte
// order, then "*", then "**". A node where templates end lists their
// entries after its segment, sorted by verb and then method, each as
// [METHOD :verb Name]. For example, /v1/probes/{name} (GET) and
// /v1/{name=probes/*}:archive (POST) share a node:
//
//	/
//	  v1
//	    probes
//	      *  [GET conf.v1.Probes.GetProbe] [POST :archive conf.v1.Probes.ArchiveProbe]
//
// The output is deterministic; it is meant for tests and debugging.
func (t *Tree[V]) String() string {
	var b strings.Builder
	t.root.print(&b, "/", 0)
	return b.String()
}

func (n *node[V]) print(b *strings.Builder, label string, depth int) {
	for range depth {
		b.WriteString("  ")
	}
	b.WriteString(label)
	for i, r := range n.routes {
		if i == 0 {
			b.WriteByte(' ')
		}
		b.WriteString(" [")
		b.WriteString(r.entry.Method)
		if r.verb != "" {
			b.WriteString(" :")
			b.WriteString(r.verb)
		}
		if r.entry.Name != "" {
			b.WriteByte(' ')
			b.WriteString(r.entry.Name)
		}
		b.WriteByte(']')
	}
	b.WriteByte('\n')
	keys := make([]string, 0, n.lit.len())
	n.lit.eachPair(func(k string, _ *node[V]) bool {
		keys = append(keys, k)
		return true
	})
	slices.Sort(keys)
	for _, k := range keys {
		c, _ := n.lit.find(k)
		c.print(b, k, depth+1)
	}
	if n.wild != nil {
		n.wild.print(b, "*", depth+1)
	}
	if n.deep != nil {
		n.deep.print(b, "**", depth+1)
	}
}
