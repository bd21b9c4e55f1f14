package openapi

import (
	"slices"
	"strconv"
	"strings"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/httprule"
)

// An openPath is a template as an OpenAPI path: literals kept, each
// wildcard a {parameter}, the verb kept literally ("/v1/{name}:cancel").
type openPath struct {
	key     string // the OpenAPI path
	pieces  []piece
	verb    string
	params  []pathParam
	unnamed bool       // write {} for each parameter (see appendKey)
	shape   *pathShape // the paths of its shape, which share its parameters' names
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
	// segment reports a wildcard of a variable of several segments,
	// {f=shelves/*}: a segment of the field's value, named after what it
	// stands for (see name); base is the name it would rather have.
	segment bool
	base    string
	// from and to are the pieces of the parameter's variable.
	from, to int
}

// value is the full value of the variable of parameter i, as a template:
// "shelves/{shelf}/books/{book}".
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
// give; the first template of a shape names its parameters (see name),
// and later ones take those names (each parameter's description says
// which field it sets). A name given to a segment is one that no query
// parameter of any route of the shape takes.
//
// path expands each route's template, in the document's order; finish
// then names every path's parameters and writes its key.
type pathShapes struct {
	shapes    map[string]*pathShape // by the paths' shape (see appendKey)
	order     []*pathShape          // in the order of their first path
	all       []*openPath           // every path, for finish
	resources resources

	// What paths are made of, taken a chunk at a time (see slab).
	paths      slab[openPath]
	pieces     slab[piece]
	params     slab[pathParam]
	pathShapes slab[pathShape]
	buf        []byte // a shape or key being written
}

// A pathShape is the paths that differ only in their parameters' names:
// the first, which names the parameters, and when a parameter of it is a
// segment, the query plans of the routes of all.
type pathShape struct {
	first    *openPath
	segments bool
	queries  []*bind.Query
}

// path returns the OpenAPI path of r, to be named by finish.
func (s *pathShapes) path(r *Route) *openPath {
	p := s.paths.new()
	s.expand(p, r.Template)
	p.unnamed = true
	s.buf = p.appendKey(s.buf[:0])
	p.unnamed = false
	sh, ok := s.shapes[string(s.buf)]
	if !ok {
		if s.shapes == nil {
			s.shapes = map[string]*pathShape{}
		}
		sh = s.pathShapes.new()
		sh.first = p
		s.shapes[string(s.buf)] = sh
		s.order = append(s.order, sh)
		var req *bind.Request
		if r.Rule != nil {
			req = r.Rule.Request
		}
		sh.segments = s.name(p, r.Template, req)
	}
	if r.Rule != nil && sh.segments && !slices.Contains(sh.queries, r.Rule.Request.Query) {
		sh.queries = append(sh.queries, r.Rule.Request.Query)
	}
	p.shape = sh
	s.all = append(s.all, p)
	return p
}

// finish gives the segment parameters of each shape names no query
// parameter of its routes takes, then each path its shape's names and
// its key.
func (s *pathShapes) finish() {
	for _, sh := range s.order {
		if sh.queries == nil {
			continue
		}
		for i := range sh.first.params {
			if pp := &sh.first.params[i]; pp.segment && sh.queryTakes(pp.name) {
				pp.name = sh.first.free(pp.base, sh.queryTakes)
			}
		}
	}
	for _, p := range s.all {
		if first := p.shape.first; p != first {
			for i := range p.params {
				p.params[i].name = first.params[i].name
			}
		}
		s.buf = p.appendKey(s.buf[:0])
		p.key = string(s.buf)
	}
}

// queryTakes reports whether a route of the shape takes a query parameter
// called name.
func (sh *pathShape) queryTakes(name string) bool {
	for _, q := range sh.queries {
		if q.Binds(name) {
			return true
		}
	}
	return false
}

// expand turns t into an OpenAPI path, its parameters not yet named.
func (s *pathShapes) expand(p *openPath, t *httprule.Template) {
	wildcards := 0
	for _, seg := range t.Segments {
		if seg.Kind != httprule.Literal {
			wildcards++
		}
	}
	*p = openPath{verb: t.Verb, pieces: s.pieces.slice(len(t.Segments)), params: s.params.slice(wildcards)}
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
					field: field, variable: vi - 1, whole: whole, segment: v.End-v.Start > 1,
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
		p.params = append(p.params, pathParam{variable: -1, multi: seg.Kind == httprule.DeepWildcard, from: n, to: n + 1})
	}
}

// name names the parameters of p, the path of template t, whose
// variables set the fields of req (nil for a custom route), and reports
// whether a parameter is a segment. A variable of one segment, {f} or
// {f=**}, is named by its field path, and a wildcard outside variables
// _segment. The wildcards of a longer variable, its segments, take the
// variable names of the google.api.resource pattern of the field's
// resource when one has the variable's shape (see resources):
// {name=shelves/*/books/*} is shelves/{shelf}/books/{book}. Without one,
// a segment is named after the collection before it in the variable, in
// the singular ({name=rooms/*} is rooms/{room}, see singular), or
// by the field path when no literal precedes it. No two parameters of p
// have one name: a segment's name taken already is followed by 2, 3…
// (book2), a field path or _segment by _1, _2….
func (s *pathShapes) name(p *openPath, t *httprule.Template, req *bind.Request) bool {
	segments := false
	for i := range p.params {
		pp := &p.params[i]
		switch {
		case pp.segment:
			segments = true
		case pp.variable < 0:
			pp.name = p.unique("_segment")
		default:
			pp.name = p.unique(pp.field)
		}
	}
	if !segments {
		return false
	}
	var names []string // the resource pattern's names of the current variable's wildcards
	vi := -1
	for j, pc := range p.pieces {
		if pc.param < 0 || !p.params[pc.param].segment {
			continue
		}
		pp := &p.params[pc.param]
		if pp.variable != vi {
			vi, names = pp.variable, nil
			if req != nil {
				path := req.Vars[vi].Field.Path()
				v := t.Variables[vi]
				names = s.resources.names(path[len(path)-1], t.Segments[v.Start:v.End])
			}
		}
		var base string
		switch {
		case names != nil:
			base, names = names[0], names[1:]
		case j > pp.from && p.pieces[j-1].param < 0:
			base = singular(p.pieces[j-1].literal)
		}
		if !isName(base) {
			base = pp.field
		}
		pp.base = base
		pp.name = p.free(base, nil)
	}
	return true
}

// unique returns base, or base_1, base_2… when a parameter of p has it.
func (p *openPath) unique(base string) string {
	name := base
	for i := 1; p.has(name); i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	return name
}

// free returns base, or base2, base3…, the first that no parameter of p
// has and that taken, if not nil, does not report taken.
func (p *openPath) free(base string, taken func(string) bool) string {
	name := base
	for i := 2; p.has(name) || taken != nil && taken(name); i++ {
		name = base + strconv.Itoa(i)
	}
	return name
}

// has reports whether a parameter of p is called name.
func (p *openPath) has(name string) bool {
	return slices.ContainsFunc(p.params, func(pp pathParam) bool { return pp.name == name })
}

// singular returns the name of one member of a collection, from the
// collection's name: "ies" becomes "y" (policies → policy), "lves" "lf"
// (shelves → shelf); "sses", "xes", "ches" and "shes" lose their "es"
// (addresses → address, boxes → box); any other final "s" but that of
// "ss" goes (books → book, archives → archive); a name that ends
// otherwise is kept (data → data). It is a guess, simple enough to
// foresee; a google.api.resource pattern names the segments exactly.
func singular(collection string) string {
	switch {
	case strings.HasSuffix(collection, "ies") && len(collection) > 3:
		return collection[:len(collection)-3] + "y"
	case strings.HasSuffix(collection, "lves"):
		return collection[:len(collection)-3] + "f"
	case strings.HasSuffix(collection, "sses"), strings.HasSuffix(collection, "xes"),
		strings.HasSuffix(collection, "ches"), strings.HasSuffix(collection, "shes"):
		return collection[:len(collection)-2]
	case strings.HasSuffix(collection, "s") && !strings.HasSuffix(collection, "ss"):
		return collection[:len(collection)-1]
	}
	return collection
}

// isName reports whether s may name a parameter: letters, digits and
// "_", "-" or ".", a letter or "_" first.
func isName(s string) bool {
	for i, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}
