// Package mdsection writes the generated section of a Markdown file,
// between an HTML comment that begins it and one that ends it, for the
// benchmark reports (docs/benchmarks.md).
package mdsection

import (
	"fmt"
	"strings"
)

// Splice puts section between beginMarker and endMarker in doc, leaving
// the rest of doc as it is. Without markers, it inserts them, around section, before the
// first second-level heading after the document's title (after the title
// and its introduction), or at the end if there is none.
func Splice(doc, section, beginMarker, endMarker string) (string, error) {
	block := beginMarker + "\n" + section + endMarker
	i := strings.Index(doc, beginMarker)
	j := strings.Index(doc, endMarker)
	switch {
	case i >= 0 && j > i:
		return doc[:i] + block + doc[j+len(endMarker):], nil
	case i >= 0 || j >= 0:
		return "", fmt.Errorf("one of %s and %s without the other, or in the wrong order", beginMarker, endMarker)
	}
	lines := strings.SplitAfter(doc, "\n")
	off, seenTitle := 0, false
	for _, l := range lines {
		if strings.HasPrefix(l, "# ") {
			seenTitle = true
		} else if seenTitle && strings.HasPrefix(l, "## ") {
			return doc[:off] + block + "\n\n" + doc[off:], nil
		}
		off += len(l)
	}
	if doc != "" && !strings.HasSuffix(doc, "\n") {
		doc += "\n"
	}
	if doc != "" {
		doc += "\n"
	}
	return doc + block + "\n", nil
}
