package openapi

import (
	"slices"
	"strconv"
	"strings"

	"github.com/protorest/protorest/internal/httprule"
)

// An openPath is a template as an OpenAPI path: literals kept, each
// wildcard a {parameter}, the verb kept literally ("/v1/{name}:cancel").
type openPath struct {
	key     string // the OpenAPI path
	pieces  []piece
	verb    string
	params  []pathParam
	unnamed bool // write {} for each parameter (see appendKey)
}

// A piece is one segment of an OpenAPI path: a literal, or parameter
// number param.
type piece struct {
	literal string
	param   int // -1 for a literal
}

// A pathParam is one {parameter} of an OpenAPI path: one wildcard of the
// template.
type pathParam struct {
	name     string
	field    string // the dotted field path it sets, or "" for a wildcard outside a variable
	variable int    // the index of its variable in the template, or -1 outside one
	// whole reports that the parameter is the whole variable, {f} or
	// {f=*}: its value is the field's, and so is its schema.
	whole bool
	multi bool // "**": spans segments, its "/" not escaped
	// from and to are the pieces of the parameter's variable.
	from, to int
}

// value is the full value of the variable of parameter i, as a template:
// "shelves/{name}/books/{name_1}".
func (p *openPath) value(i int) string {
	pp := p.params[i]
	return string(p.appendPieces(nil, p.pieces[pp.from:pp.to], false))
}

// appendPieces appends pieces with "/" between them, and before the first
// when leadingSlash; each parameter is {name}, or {} when unnamed.
func (p *openPath) appendPieces(b []byte, pieces []piece, leadingSlash bool) []byte {
	for i, pc := range pieces {
		if i > 0 || leadingSlash {
			b = append(b, '/')
		}
		if pc.param < 0 {
			b = append(b, pc.literal...)
			continue
		}
		b = append(b, '{')
		if !p.unnamed {
			b = append(b, p.params[pc.param].name...)
		}
		b = append(b, '}')
	}
	return b
}

// appendKey appends the OpenAPI path: "/" for no pieces, then the verb
// after a ':'. With unnamed set, it is the path's shape: the path without
// its parameters' names.
func (p *openPath) appendKey(b []byte) []byte {
	b = p.appendPieces(b, p.pieces, true)
	if len(p.pieces) == 0 {
		b = append(b, '/')
	}
	if p.verb != "" {
		b = append(append(b, ':'), p.verb...)
	}
	return b
}

// pathShapes names the parameters of paths. OpenAPI forbids two paths
// that differ only in their parameters' names, which templates such as
// GET /v1/{name=shelves/*} and PATCH /v1/{shelf.name=shelves/*} would
// give; the first template of a shape names its parameters, and later
// ones take those names (each parameter's description says which field
// it sets).
type pathShapes struct {
	names map[string][]string // shape → parameter names

	// What paths are made of, taken a chunk at a time (see slab).
	paths  slab[openPath]
	pieces slab[piece]
	params slab[pathParam]
	buf    []byte // a shape or key being written
}

// path returns the OpenAPI path of t.
func (s *pathShapes) path(t *httprule.Template) *openPath {
	p := s.paths.new()
	s.expand(p, t)
	p.unnamed = true
	s.buf = p.appendKey(s.buf[:0])
	p.unnamed = false
	if names, ok := s.names[string(s.buf)]; ok {
		for i := range p.params {
			p.params[i].name = names[i]
		}
	} else {
		if s.names == nil {
			s.names = map[string][]string{}
		}
		names = make([]string, len(p.params))
		for i, pp := range p.params {
			names[i] = pp.name
		}
		s.names[string(s.buf)] = names
	}
	s.buf = p.appendKey(s.buf[:0])
	p.key = string(s.buf)
	return p
}

// expand turns t into an OpenAPI path, naming each wildcard as the
// mapping table of ../shared/ECOSYSTEM.md does: a variable's only
// wildcard by its field path, its wildcards f, f_1, f_2… when it has
// several, and wildcards outside variables _segment, _segment_1….
func (s *pathShapes) expand(p *openPath, t *httprule.Template) {
	wildcards := 0
	for _, seg := range t.Segments {
		if seg.Kind != httprule.Literal {
			wildcards++
		}
	}
	*p = openPath{verb: t.Verb, pieces: s.pieces.slice(len(t.Segments)), params: s.params.slice(wildcards)}
	unique := func(base string) string {
		name := base
		for i := 1; slices.ContainsFunc(p.params, func(pp pathParam) bool { return pp.name == name }); i++ {
			name = base + "_" + strconv.Itoa(i)
		}
		return name
	}
	vi := 0
	for i := 0; i < len(t.Segments); i++ {
		seg := t.Segments[i]
		if vi < len(t.Variables) && t.Variables[vi].Start == i {
			v := t.Variables[vi]
			vi++
			field := strings.Join(v.FieldPath, ".")
			whole := v.End-v.Start == 1 && seg.Kind == httprule.Wildcard
			from := len(p.pieces)
			to := from + v.End - v.Start
			for j := v.Start; j < v.End; j++ {
				s := t.Segments[j]
				if s.Kind == httprule.Literal {
					p.pieces = append(p.pieces, piece{literal: s.Value, param: -1})
					continue
				}
				p.pieces = append(p.pieces, piece{param: len(p.params)})
				p.params = append(p.params, pathParam{
					name: unique(field), field: field, variable: vi - 1, whole: whole,
					multi: s.Kind == httprule.DeepWildcard, from: from, to: to,
				})
			}
			i = v.End - 1
			continue
		}
		if seg.Kind == httprule.Literal {
			p.pieces = append(p.pieces, piece{literal: seg.Value, param: -1})
			continue
		}
		n := len(p.pieces)
		p.pieces = append(p.pieces, piece{param: len(p.params)})
		p.params = append(p.params, pathParam{name: unique("_segment"), variable: -1, multi: seg.Kind == httprule.DeepWildcard, from: n, to: n + 1})
	}
}
