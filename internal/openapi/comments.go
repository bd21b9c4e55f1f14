package openapi

import (
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// A docComment is the leading comment of a descriptor, cleaned: one space
// of indentation taken off each line (what "// " leaves), AIP-192 internal
// comments "(-- … --)" removed, blank lines at either end dropped.
type docComment string

// comment returns the leading comment of d: from its own file's source
// info, or, when its file has none (generated Go code keeps none; .proto
// files compiled in-process, descriptor sets written with source info and
// some reflection servers have it), from Options.Comments, by full name.
// A build asks for the comments of most descriptors of the files it
// documents, so the first ask of a file reads all of its comments at once
// (see readComments).
func (b *builder) comment(d protoreflect.Descriptor) docComment {
	f := d.ParentFile()
	if f == nil {
		return ""
	}
	if f != b.lastFile {
		own, read := b.commentsRead[f]
		if !read {
			own = f.SourceLocations().Len() > 0
			b.commentsRead[f] = own
			readComments(f, func(d protoreflect.Descriptor, c docComment) {
				if _, ok := b.comments[d]; !ok { // the first location of a path is its own, as ByDescriptor has it
					b.comments[d] = c
				}
			})
		}
		b.lastFile, b.lastOwn = f, own
	}
	if !b.lastOwn {
		return b.borrowed[d.FullName()]
	}
	return b.comments[d]
}

// commentsByName returns the comments of files by the full names of
// their declarations (see Options.Comments).
func commentsByName(files []protoreflect.FileDescriptor) map[protoreflect.FullName]docComment {
	if len(files) == 0 {
		return nil
	}
	byName := map[protoreflect.FullName]docComment{}
	for _, f := range files {
		readComments(f, func(d protoreflect.Descriptor, c docComment) {
			if _, ok := byName[d.FullName()]; !ok {
				byName[d.FullName()] = c
			}
		})
	}
	return byName
}

// readComments gives keep the cleaned leading comments of f's messages,
// fields, oneofs, enums, enum values, services and methods. It walks f's
// source locations once, from each location's path to its descriptor:
// the reverse of SourceLocations.ByDescriptor, which would look up each
// descriptor's path in turn.
func readComments(f protoreflect.FileDescriptor, keep func(protoreflect.Descriptor, docComment)) {
	locs := f.SourceLocations()
	for i := range locs.Len() {
		loc := locs.Get(i)
		if loc.LeadingComments == "" {
			continue
		}
		if d := declaredAt(f, loc.Path); d != nil {
			keep(d, cleanComment(loc.LeadingComments))
		}
	}
}

// The numbers of the fields of google/protobuf/descriptor.proto that a
// source path goes through to a declaration.
const (
	fileMessages   = 4 // FileDescriptorProto.message_type
	fileEnums      = 5 // FileDescriptorProto.enum_type
	fileServices   = 6 // FileDescriptorProto.service
	messageFields  = 2 // DescriptorProto.field
	messageNested  = 3 // DescriptorProto.nested_type
	messageEnums   = 4 // DescriptorProto.enum_type
	messageOneofs  = 8 // DescriptorProto.oneof_decl
	enumValues     = 2 // EnumDescriptorProto.value
	serviceMethods = 2 // ServiceDescriptorProto.method
)

// declaredAt returns the descriptor that source path p of f declares, or
// nil when p is not a declaration's own path (a part of one, an option,
// an extension).
func declaredAt(f protoreflect.FileDescriptor, p protoreflect.SourcePath) protoreflect.Descriptor {
	if len(p) < 2 {
		return nil
	}
	switch p[0] {
	case fileMessages:
		if md := nth(f.Messages(), p[1]); md != nil {
			return messageDeclaredAt(md, p[2:])
		}
	case fileEnums:
		if ed := nth(f.Enums(), p[1]); ed != nil {
			return enumDeclaredAt(ed, p[2:])
		}
	case fileServices:
		sd := nth(f.Services(), p[1])
		switch {
		case sd == nil:
		case len(p) == 2:
			return sd
		case len(p) == 4 && p[2] == serviceMethods:
			return nth(sd.Methods(), p[3])
		}
	}
	return nil
}

func messageDeclaredAt(md protoreflect.MessageDescriptor, p protoreflect.SourcePath) protoreflect.Descriptor {
	if len(p) == 0 {
		return md
	}
	if len(p) < 2 {
		return nil
	}
	switch p[0] {
	case messageFields:
		if len(p) == 2 {
			return nth(md.Fields(), p[1])
		}
	case messageOneofs:
		if len(p) == 2 {
			return nth(md.Oneofs(), p[1])
		}
	case messageNested:
		if nested := nth(md.Messages(), p[1]); nested != nil {
			return messageDeclaredAt(nested, p[2:])
		}
	case messageEnums:
		if ed := nth(md.Enums(), p[1]); ed != nil {
			return enumDeclaredAt(ed, p[2:])
		}
	}
	return nil
}

func enumDeclaredAt(ed protoreflect.EnumDescriptor, p protoreflect.SourcePath) protoreflect.Descriptor {
	switch {
	case len(p) == 0:
		return ed
	case len(p) == 2 && p[0] == enumValues:
		return nth(ed.Values(), p[1])
	}
	return nil
}

// nth returns the i-th descriptor of list, or nil when there is none.
func nth[T protoreflect.Descriptor](list interface {
	Len() int
	Get(int) T
}, i int32) T {
	if i < 0 || int(i) >= list.Len() {
		var none T
		return none
	}
	return list.Get(int(i))
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
