package openapi

import (
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// A docComment is the leading comment of a descriptor, cleaned: one space
// of indentation taken off each line (what "// " leaves), AIP-192 internal
// comments "(-- … --)" removed, blank lines at either end dropped.
type docComment string

// comment returns the leading comment of d, "" when the descriptors carry
// no source info (generated Go code keeps none; .proto files compiled
// in-process, and some reflection servers, do). A build asks for the
// comments of a method's rules, and of the fields of its messages, many
// times: each is looked up (by the descriptor's path) and cleaned once.
func (b *builder) comment(d protoreflect.Descriptor) docComment {
	if c, ok := b.comments[d]; ok {
		return c
	}
	loc := d.ParentFile().SourceLocations().ByDescriptor(d)
	c := cleanComment(loc.LeadingComments)
	b.comments[d] = c
	return c
}

func cleanComment(raw string) docComment {
	if raw == "" {
		return ""
	}
	for {
		start := strings.Index(raw, "(--")
		if start < 0 {
			break
		}
		end := strings.Index(raw[start:], "--)")
		if end < 0 {
			raw = raw[:start]
			break
		}
		raw = raw[:start] + raw[start+end+3:]
	}
	lines := strings.Split(raw, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(strings.TrimPrefix(l, " "), " \t\r")
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return docComment(strings.Join(lines, "\n"))
}

// text is the whole comment.
func (c docComment) text() string { return string(c) }

// split returns the summary, the comment's first sentence (of its first
// paragraph, on one line), and the description, the rest.
func (c docComment) split() (summary, description string) {
	s := string(c)
	para, rest, _ := strings.Cut(s, "\n\n")
	end := sentenceEnd(para)
	summary = strings.Join(strings.Fields(para[:end]), " ")
	rest1 := strings.TrimSpace(para[end:])
	switch {
	case rest1 == "":
		description = strings.Trim(rest, "\n")
	case rest == "":
		description = rest1
	default:
		description = rest1 + "\n\n" + rest
	}
	return summary, description
}

// sentenceEnd returns the end of the first sentence of p: after the first
// '.' followed by white space, or all of p.
func sentenceEnd(p string) int {
	for i := 0; i < len(p); i++ {
		if p[i] == '.' && (i+1 == len(p) || p[i+1] == ' ' || p[i+1] == '\n') {
			return i + 1
		}
	}
	return len(p)
}
