package httprule

import (
	"strconv"
	"strings"
)

// Parse parses a path template such as "/v1/{name=shelves/*/books/*}:archive"
// according to the grammar in the package doc. A segment is wholly a
// literal, a wildcard or a variable, so "/a{x}" is malformed; "/a*" is the
// literal "a*". At most one "**" appears.
//
// Parse keeps every distinction the grammar makes: for a template s that
// the grammar derives, Parse(s).String() == s. A template outside the
// grammar that grpc-gateway reads all the same (see [lenient]) is parsed
// as grpc-gateway reads it; its String is then the grammar's form of that
// reading.
//
// A malformed template yields a *SyntaxError whose Column points at the
// offending byte, or one past the end when the template ends too early.
func Parse(s string) (*Template, error) {
	t, err := parse(s, false)
	if err == nil {
		return t, nil
	}
	if t, lerr := parse(s, true); lerr == nil {
		return t, nil
	}
	return nil, err
}

// parse parses s by the grammar or, leniently, as grpc-gateway v2's
// parser reads what the grammar refuses (its internal/httprule Parse and
// tokenize), so that no .proto file grpc-gateway serves stops a gateway:
//
//   - an empty segment ("/a//", "/{x=/}", "/a///b") is "*": grpc-gateway's
//     parser takes the "/" token for the "*" it expects;
//   - an empty verb ("/a:", "/{x}:") is no verb.
func parse(s string, lenient bool) (*Template, error) {
	if s == "" || s[0] != '/' {
		return nil, &SyntaxError{Template: s, Column: 1, Msg: `expected "/"`}
	}
	if s == "/" {
		return &Template{}, nil
	}
	p := parser{
		s:       s,
		i:       1,
		deep:    -1,
		lenient: lenient,
		t:       &Template{Segments: make([]Segment, 0, strings.Count(s, "/"))},
	}
	if n := strings.Count(s, "{"); n > 0 {
		p.t.Variables = make([]Variable, 0, n)
		// One backing array for every field path: n paths with at most
		// one extra component per dot.
		p.idents = make([]string, 0, n+strings.Count(s, "."))
	}
	if err := p.segments(false); err != nil {
		return nil, err
	}
	if p.i < len(s) { // segments stopped at ':'
		if err := p.verb(); err != nil {
			return nil, err
		}
	}
	return p.t, nil
}

// parser holds the state of one Parse call.
type parser struct {
	s       string
	i       int // offset of the next unread byte
	t       *Template
	deep    int      // offset of the "**" segment, or -1
	idents  []string // backing array for the FieldPath slices
	lenient bool     // read as grpc-gateway does what the grammar refuses
}

// fail returns a *SyntaxError for the byte at offset off.
func (p *parser) fail(off int, msg string) error {
	return &SyntaxError{Template: p.s, Column: off + 1, Msg: msg}
}

// unexpected reports the byte at offset off, which cannot appear there.
func (p *parser) unexpected(off int, where string) error {
	return p.fail(off, "unexpected "+strconv.Quote(p.s[off:off+1])+where)
}

// segments parses Segments. It stops at the end of the template or, with a
// nil error, before a ':' (top level) or '}' (inside a variable).
func (p *parser) segments(inVar bool) error {
	for {
		if err := p.segment(inVar); err != nil {
			return err
		}
		if p.i == len(p.s) || p.s[p.i] != '/' {
			return nil
		}
		p.i++
	}
}

// segment parses one Segment: a variable, or the text up to the segment's
// end (see literalEnd), which is "*", "**" or a literal.
func (p *parser) segment(inVar bool) error {
	off := p.i
	if off < len(p.s) && p.s[off] == '{' {
		if inVar {
			return p.fail(off, "nested variable")
		}
		if err := p.variable(); err != nil {
			return err
		}
		return p.segmentEnd(false, "variable")
	}
	end := p.literalEnd(off, inVar)
	seg := Segment{Kind: Literal, Value: p.s[off:end]}
	switch seg.Value {
	case "":
		if p.lenient && off < len(p.s) && p.s[off] == '/' {
			end++ // grpc-gateway's "*"
			seg = Segment{Kind: Wildcard}
			break
		}
		if off < len(p.s) && p.s[off] == '}' && !inVar {
			return p.unexpected(off, "")
		}
		return p.fail(off, "empty segment")
	case "*":
		seg = Segment{Kind: Wildcard}
	case "**":
		seg = Segment{Kind: DeepWildcard}
	}
	if err := p.add(off, seg); err != nil {
		return err
	}
	p.i = end
	return p.segmentEnd(inVar, "literal")
}

// literalEnd returns the offset at which the segment text that starts at
// off ends: at "/", "{" or "}", or at the top level at the ":" that
// starts the verb, the first ":" of the last segment. A ":" with a "/"
// after it, and any ":" inside a variable, is part of the segment, as
// grpc-gateway reads it.
func (p *parser) literalEnd(off int, inVar bool) int {
	for i := off; i < len(p.s); i++ {
		switch p.s[i] {
		case '/', '{', '}':
			return i
		case ':':
			if !inVar && strings.IndexByte(p.s[i:], '/') < 0 {
				return i
			}
		}
	}
	return len(p.s)
}

// segmentEnd checks that the segment just parsed, a what, is followed by a
// byte that may end it.
func (p *parser) segmentEnd(inVar bool, what string) error {
	if p.i == len(p.s) {
		if inVar {
			return p.fail(p.i, `expected "}"`)
		}
		return nil
	}
	switch c := p.s[p.i]; {
	case c == '/', c == ':' && !inVar, c == '}' && inVar:
		return nil
	case c == '{' && inVar:
		return p.fail(p.i, "nested variable")
	case c == '{':
		return p.fail(p.i, "variable must cover a whole segment")
	case what == "variable":
		return p.fail(p.i, "variable must cover a whole segment")
	}
	if inVar {
		return p.unexpected(p.i, " in variable")
	}
	return p.unexpected(p.i, "")
}

// add appends seg, which starts at offset off, to the template.
func (p *parser) add(off int, seg Segment) error {
	if seg.Kind == DeepWildcard {
		if p.deep >= 0 {
			return p.fail(off, `only one "**" may appear`)
		}
		p.deep = off
	}
	p.t.Segments = append(p.t.Segments, seg)
	return nil
}

// variable parses a Variable; p.s[p.i] is '{'. A field path may be bound
// twice ("/{x}/{x}"): grpc-gateway sets the field from the last.
func (p *parser) variable() error {
	open := p.i
	p.i++
	path, err := p.fieldPath()
	if err != nil {
		return err
	}
	v := Variable{FieldPath: path, Start: len(p.t.Segments)}
	if p.s[p.i] == '=' {
		p.i++
		v.Explicit = true
		if err := p.segments(true); err != nil {
			return err
		}
	} else if err := p.add(open, Segment{Kind: Wildcard}); err != nil {
		return err
	}
	// Both fieldPath and segments(true) stop only before a '}'.
	p.i++
	v.End = len(p.t.Segments)
	p.t.Variables = append(p.t.Variables, v)
	return nil
}

// fieldPath parses a FieldPath and stops before the '=' or '}' that ends it.
func (p *parser) fieldPath() ([]string, error) {
	first := len(p.idents)
	for {
		start := p.i
		for p.i < len(p.s) && isIdent(p.s[p.i]) {
			p.i++
		}
		if p.i == start {
			return nil, p.fail(p.i, "expected field name")
		}
		p.idents = append(p.idents, p.s[start:p.i])
		if p.i == len(p.s) {
			return nil, p.fail(p.i, `expected "}"`)
		}
		switch p.s[p.i] {
		case '.':
			p.i++
		case '=', '}':
			return p.idents[first:len(p.idents):len(p.idents)], nil
		default:
			return nil, p.unexpected(p.i, " in field path")
		}
	}
}

// verb parses a Verb; p.s[p.i] is ':'. Each ':'-separated part must be a
// non-empty LITERAL ("*" may appear in it). Leniently, a lone ":" at the
// end is no verb.
func (p *parser) verb() error {
	if p.lenient && p.i == len(p.s)-1 {
		p.i++
		return nil
	}
	start := p.i + 1
	for p.i < len(p.s) {
		if p.s[p.i] != ':' {
			return p.unexpected(p.i, " in verb")
		}
		p.i++
		part := p.i
		for p.i < len(p.s) && isVerb(p.s[p.i]) {
			p.i++
		}
		if p.i == part {
			if p.i < len(p.s) && p.s[p.i] != ':' {
				return p.unexpected(p.i, " in verb")
			}
			return p.fail(p.i, "empty verb")
		}
	}
	p.t.Verb = p.s[start:]
	return nil
}

// isVerb reports whether c may appear in a part of a verb.
func isVerb(c byte) bool {
	switch c {
	case '/', ':', '{', '}':
		return false
	}
	return true
}

// isIdent reports whether c may appear in an IDENT.
func isIdent(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}
