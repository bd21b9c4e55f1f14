// Package httprule parses and validates google.api.http path templates.
//
// The grammar (from google/api/http.proto, with the extensions protorest
// serves because grpc-gateway does, see PROFILE.md):
//
//	Template  = "/" [ ":" LITERAL ] | "/" { Segment "/" } Last ;
//	Segment   = "*" | "**" | TEXT | Variable ;
//	Last      = Variable [ ":" TEXT ] | LastText ;
//	LastText  = LITERAL | TEXT ":" LITERAL
//	          | [ TEXT ] "::" | ":" [ LITERAL ] ":" | ( "*" | "**" ) ":" [ LITERAL ] ":" ;
//	Variable  = "{" FieldPath [ "=" TEXT { "/" TEXT } ] "}" ;
//	FieldPath = IDENT { "." IDENT } ;
//	LITERAL   = 1*( any byte except "/" ":" "{" "}" ) ;
//	TEXT      = 1*( any byte except "/" "{" "}" ) ;
//	IDENT     = 1*( "A"…"Z" | "a"…"z" | "0"…"9" | "_" ) ;
//
// A segment that is exactly "*" or "**" is a wildcard, any other is a
// literal ("a*", "a:b"). The verb is split off as grpc-gateway's parser
// splits it: after a variable at the first colon, so that it may hold
// colons and empty parts ("/{x}::v" is the verb ":v"); in a LastText at
// the last colon, before which is "*", "**" or a literal ("/a/*:go";
// "/v1/x::a" is the literal "x:" and the verb "a"). The last three forms
// of LastText end in an empty verb: they are the literals ("a:", ":a",
// "*:c") that the other forms cannot write. A root with a verb ("/:v")
// matches nothing, as in grpc-gateway. http.proto has no ":" or "*" in
// literals, one literal as the verb, and only literals after "**". Parse
// also reads two forms outside the grammar as grpc-gateway does (an empty
// segment as "*", an empty verb as none).
//
// A parsed Template is a flat list of segments plus the variables that
// cover ranges of them; variables do not nest and cover at least one
// segment. At most one "**" appears. Two variables may bind the same
// field path: the last one's value is the field's, as in grpc-gateway.
// A last segment that is a literal outside any variable holds, with the
// verb, the text a request's last segment must equal, split at its first
// colon that leaves both sides non-empty ("x:" and "a" are the literal
// "x" and the verb ":a"): the verb of such a text is what a router that
// takes the longest verb it knows finds. Its literal may then be "*" or
// "**" ("/*:c:" is the literal "*" and the verb "c").
package httprule

import (
	"strconv"
	"strings"
)

// SegmentKind is the kind of one path segment of a template.
type SegmentKind uint8

const (
	// Literal matches one request segment byte for byte.
	Literal SegmentKind = iota
	// Wildcard ("*") matches exactly one request segment.
	Wildcard
	// DeepWildcard ("**") matches zero or more request segments at the end
	// of a template, and one or more when other segments follow it.
	DeepWildcard
)

// Segment is one "/"-separated piece of a template.
type Segment struct {
	Kind  SegmentKind
	Value string // the literal text, for Literal segments
}

// Variable binds the request segments Segments[Start:End] to a field path.
type Variable struct {
	FieldPath []string // dotted components, e.g. ["book", "name"]
	Start     int      // index of the first segment covered
	End       int      // index one past the last segment covered
	// Explicit reports whether the variable was written with "=" and a
	// sub-template ({name=shelves/*}); {name} alone is {name=*}.
	Explicit bool
}

// Template is a parsed path template.
type Template struct {
	Segments  []Segment
	Variables []Variable
	Verb      string // without the leading ":"; "" when there is none
}

// String returns the canonical form of t. Parse(t.String()) yields a
// template equal to t.
func (t *Template) String() string {
	var b strings.Builder
	if len(t.Segments) == 0 {
		b.WriteByte('/')
	}
	vi := 0
	for i := 0; i < len(t.Segments); i++ {
		b.WriteByte('/')
		if vi < len(t.Variables) && t.Variables[vi].Start == i {
			v := t.Variables[vi]
			vi++
			b.WriteByte('{')
			b.WriteString(strings.Join(v.FieldPath, "."))
			if v.Explicit || v.End-v.Start != 1 || t.Segments[i].Kind != Wildcard {
				b.WriteByte('=')
				for j := v.Start; j < v.End; j++ {
					if j > v.Start {
						b.WriteByte('/')
					}
					writeSegment(&b, t.Segments[j])
				}
			}
			b.WriteByte('}')
			i = v.End - 1
			continue
		}
		writeSegment(&b, t.Segments[i])
	}
	if t.Verb != "" {
		b.WriteByte(':')
		b.WriteString(t.Verb)
	}
	s := b.String()
	if last := len(t.Segments) - 1; last >= 0 && t.Segments[last].Kind == Literal && !t.inVariable(last) &&
		misread(s[strings.LastIndexByte(s, '/')+1:]) {
		s += ":" // an empty verb: the text is the literal
	}
	return s
}

// inVariable reports whether a variable covers segment i.
func (t *Template) inVariable(i int) bool {
	for _, v := range t.Variables {
		if v.Start <= i && i < v.End {
			return true
		}
	}
	return false
}

// splitLast splits the text of a last literal segment and its verb at
// the first colon that leaves both sides non-empty, or returns text
// whole, without a verb.
func splitLast(text string) (literal, verb string) {
	if len(text) > 2 {
		if i := strings.IndexByte(text[1:len(text)-1], ':'); i >= 0 {
			return text[:i+1], text[i+2:]
		}
	}
	return text, ""
}

// misread reports whether grpc-gateway's parser, given text as a last
// segment outside a variable, reads it as something other than one
// literal: it splits the verb off at the last colon, so a colon that
// starts text leaves no segment, one that ends it an empty verb (the
// colon is dropped), and one after exactly "*" or "**" a wildcard. The
// grammar writes such a literal with a colon after it (LastText).
func misread(text string) bool {
	i := strings.LastIndexByte(text, ':')
	if i < 0 {
		return false
	}
	return i == 0 || i == len(text)-1 || text[:i] == "*" || text[:i] == "**"
}

func writeSegment(b *strings.Builder, s Segment) {
	switch s.Kind {
	case Wildcard:
		b.WriteByte('*')
	case DeepWildcard:
		b.WriteString("**")
	default:
		b.WriteString(s.Value)
	}
}

// DeepIndex returns the index of the "**" segment, or -1.
func (t *Template) DeepIndex() int {
	for i, s := range t.Segments {
		if s.Kind == DeepWildcard {
			return i
		}
	}
	return -1
}

// SyntaxError reports a malformed template. Column is 1-based and counts
// bytes of Template.
type SyntaxError struct {
	Template string
	Column   int
	Msg      string
}

// Error returns the template, the column and the message in one line.
func (e *SyntaxError) Error() string {
	return "template " + strconv.Quote(e.Template) + ": syntax error at column " + strconv.Itoa(e.Column) + ": " + e.Msg
}

// MultiSegment reports whether variable v of t is decoded as a
// multi-segment variable: it covers several segments, or "**".
func (t *Template) MultiSegment(v Variable) bool {
	return v.End-v.Start > 1 || t.Segments[v.Start].Kind == DeepWildcard
}
