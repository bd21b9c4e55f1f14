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
// grammar that grpc-gateway reads all the same (see parse) is parsed
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
//   - an empty verb ("/a:", "/{x}:", "/v1/x:a:") is none: the colon
//     before it is dropped.
//
// Either way the verb is split off first, as grpc-gateway's tokenizer
// splits it (see splitVerb).
func parse(s string, lenient bool) (*Template, error) {
	if s == "" || s[0] != '/' {
		return nil, &SyntaxError{Template: s, Column: 1, Msg: `expected "/"`}
	}
	body, verb, colon := splitVerb(s)
	p := parser{s: s, end: len(body), i: 1, deep: -1, lenient: lenient, t: &Template{}}
	if body != "/" {
		p.t.Segments = make([]Segment, 0, strings.Count(body, "/"))
		if n := strings.Count(body, "{"); n > 0 {
			p.t.Variables = make([]Variable, 0, n)
			// One backing array for every field path: n paths with at
			// most one extra component per dot.
			p.idents = make([]string, 0, n+strings.Count(body, "."))
		}
		if err := p.segments(false); err != nil {
			return nil, err
		}
	}
	if colon {
		if err := p.verb(verb); err != nil {
			return nil, err
		}
	}
	return p.t, nil
}

// splitVerb splits s into the template before its verb and the verb, as
// grpc-gateway's tokenizer does: in the text after the last "/", "{" or
// "}", at the first colon when a "}" (a variable) precedes that text,
// else at the last. colon reports whether there was a colon to split
// at; the verb after it may be empty. A colon that starts the text
// leaves no segment before it: "/:v" is the root with the verb "v", and
// "/a/:v" an empty segment.
func splitVerb(s string) (body, verb string, colon bool) {
	k := strings.LastIndexAny(s, "/{}")
	text := s[k+1:]
	var i int
	switch s[k] {
	case '{':
		return s, "", false // an unfinished variable: not a verb
	case '}':
		i = strings.IndexByte(text, ':')
	default:
		i = strings.LastIndexByte(text, ':')
	}
	if i < 0 {
		return s, "", false
	}
	return s[:k+1+i], text[i+1:], true
}

// parser holds the state of one Parse call.
type parser struct {
	s       string
	end     int // offset of the verb's colon, or len(s): where segments end
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

// segments parses Segments. It stops at p.end or, with a nil error,
// before the '}' that ends a variable.
func (p *parser) segments(inVar bool) error {
	for {
		if err := p.segment(inVar); err != nil {
			return err
		}
		if p.i == p.end || p.s[p.i] != '/' {
			return nil
		}
		p.i++
	}
}

// segment parses one Segment: a variable, or the text up to the segment's
// end (see literalEnd), which is "*", "**" or a literal.
func (p *parser) segment(inVar bool) error {
	off := p.i
	if off < p.end && p.s[off] == '{' {
		if inVar {
			return p.fail(off, "nested variable")
		}
		if err := p.variable(); err != nil {
			return err
		}
		return p.segmentEnd(false, "variable")
	}
	end := p.literalEnd(off)
	seg := Segment{Kind: Literal, Value: p.s[off:end]}
	switch seg.Value {
	case "":
		if p.lenient && off < p.end && p.s[off] == '/' {
			end++ // grpc-gateway's "*"
			seg = Segment{Kind: Wildcard}
			break
		}
		if off < p.end && p.s[off] == '}' && !inVar {
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
// off ends: at "/", "{", "}" or p.end. A ":" is part of the text: the
// verb's colon is past p.end.
func (p *parser) literalEnd(off int) int {
	if i := strings.IndexAny(p.s[off:p.end], "/{}"); i >= 0 {
		return off + i
	}
	return p.end
}

// segmentEnd checks that the segment just parsed, a what, is followed by a
// byte that may end it.
func (p *parser) segmentEnd(inVar bool, what string) error {
	if p.i == p.end {
		if inVar {
			return p.fail(p.i, `expected "}"`)
		}
		return nil
	}
	switch c := p.s[p.i]; {
	case c == '/', c == '}' && inVar:
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
		for p.i < p.end && isIdent(p.s[p.i]) {
			p.i++
		}
		if p.i == start {
			return nil, p.fail(p.i, "expected field name")
		}
		p.idents = append(p.idents, p.s[start:p.i])
		if p.i == p.end {
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

// verb sets the template's verb, v, the text after the colon at p.end.
// After a last segment that is a literal outside any variable, the
// literal and the verb are one text to grpc-gateway's router (it matches
// a request's last segment against both), which is kept split at its
// first colon that leaves both sides non-empty (see splitLast), where
// this package's router takes the verb. An empty verb, which the
// grammar writes only to keep such a text a literal (see misread), is
// otherwise none, leniently.
func (p *parser) verb(v string) error {
	t := p.t
	if last := len(t.Segments) - 1; last >= 0 && t.Segments[last].Kind == Literal && !t.inVariable(last) {
		text := t.Segments[last].Value
		if v != "" {
			text += ":" + v
		} else if !p.lenient && !misread(text) {
			return p.fail(p.end, "empty verb")
		}
		t.Segments[last].Value, t.Verb = splitLast(text)
		return nil
	}
	if v == "" && !p.lenient {
		return p.fail(p.end, "empty verb")
	}
	t.Verb = v
	return nil
}

// isIdent reports whether c may appear in an IDENT.
func isIdent(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}
