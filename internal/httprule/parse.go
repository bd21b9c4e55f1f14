package httprule

import (
	"slices"
	"strconv"
	"strings"
)

// Parse parses a path template such as "/v1/{name=shelves/*/books/*}:archive"
// according to the grammar in the package doc. A segment is wholly a
// literal, a wildcard or a variable, so "/a{x}" and "/a*" are malformed.
// Only literal segments, including those inside a variable, may follow
// "**", and no two variables may bind the same field path.
//
// Parse keeps every distinction the grammar makes: for a valid template s,
// Parse(s).String() == s.
//
// A malformed template yields a *SyntaxError whose Column points at the
// offending byte, or one past the end when the template ends too early.
func Parse(s string) (*Template, error) {
	if s == "" || s[0] != '/' {
		return nil, &SyntaxError{Template: s, Column: 1, Msg: `expected "/"`}
	}
	if s == "/" {
		return &Template{}, nil
	}
	p := parser{
		s:    s,
		i:    1,
		deep: -1,
		t:    &Template{Segments: make([]Segment, 0, strings.Count(s, "/"))},
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
	s      string
	i      int // offset of the next unread byte
	t      *Template
	deep   int      // offset of the "**" segment, or -1
	idents []string // backing array for the FieldPath slices
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

// segment parses one Segment.
func (p *parser) segment(inVar bool) error {
	off := p.i
	if off == len(p.s) {
		return p.fail(off, "empty segment")
	}
	switch p.s[off] {
	case '/', ':':
		return p.fail(off, "empty segment")
	case '}':
		if inVar {
			return p.fail(off, "empty segment")
		}
		return p.unexpected(off, "")
	case '{':
		if inVar {
			return p.fail(off, "nested variable")
		}
		if err := p.variable(); err != nil {
			return err
		}
		return p.segmentEnd(false, "variable")
	case '*':
		seg := Segment{Kind: Wildcard}
		p.i++
		if p.i < len(p.s) && p.s[p.i] == '*' {
			seg.Kind = DeepWildcard
			p.i++
		}
		if err := p.add(off, seg); err != nil {
			return err
		}
		return p.segmentEnd(inVar, "wildcard")
	}
	for p.i < len(p.s) && isLiteral(p.s[p.i]) {
		p.i++
	}
	if err := p.add(off, Segment{Kind: Literal, Value: p.s[off:p.i]}); err != nil {
		return err
	}
	return p.segmentEnd(inVar, "literal")
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
	case c == '*':
		return p.fail(p.i, "wildcard must cover a whole segment")
	case isLiteral(c):
		return p.fail(p.i, what+" must cover a whole segment")
	}
	if inVar {
		return p.unexpected(p.i, " in variable")
	}
	return p.unexpected(p.i, "")
}

// add appends seg, which starts at offset off, to the template.
func (p *parser) add(off int, seg Segment) error {
	if p.deep >= 0 && seg.Kind != Literal {
		return p.fail(off, `"**" may only be followed by literals`)
	}
	if seg.Kind == DeepWildcard {
		p.deep = off
	}
	p.t.Segments = append(p.t.Segments, seg)
	return nil
}

// variable parses a Variable; p.s[p.i] is '{'.
func (p *parser) variable() error {
	open := p.i
	p.i++
	pathOff := p.i
	path, err := p.fieldPath()
	if err != nil {
		return err
	}
	for _, v := range p.t.Variables {
		if slices.Equal(v.FieldPath, path) {
			return p.fail(pathOff, "duplicate variable "+strconv.Quote(p.s[pathOff:p.i]))
		}
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
// non-empty LITERAL.
func (p *parser) verb() error {
	start := p.i + 1
	for p.i < len(p.s) {
		if p.s[p.i] != ':' {
			return p.unexpected(p.i, " in verb")
		}
		p.i++
		part := p.i
		for p.i < len(p.s) && isLiteral(p.s[p.i]) {
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

// isLiteral reports whether c may appear in a LITERAL.
func isLiteral(c byte) bool {
	switch c {
	case '/', ':', '{', '}', '*':
		return false
	}
	return true
}

// isIdent reports whether c may appear in an IDENT.
func isIdent(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}
