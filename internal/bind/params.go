package bind

import (
	"slices"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// A QueryParam is one query parameter a rule accepts: a leaf field, set
// from a string, reached from the request message through singular
// message fields.
type QueryParam struct {
	// Name is the dotted name to send, each component the field's JSON
	// name, or with protoNames its proto name, unless only the other
	// resolves to the field here.
	Name string
	// Path is the field path, from a field of the request message to the
	// leaf.
	Path []protoreflect.FieldDescriptor
}

// Params lists the parameters q accepts, in declaration order, depth
// first: every leaf that Bind sets, except the fields bound by the path
// or the body (and what contains them or lies under them). A recursive
// message is followed once: a message type is not entered again below
// itself, so the list is finite though Bind accepts deeper names. A rule
// whose body is "*" takes none. Each name is one that Bind resolves to
// its path and does not drop as ignored.
func (q *Query) Params(protoNames bool) []QueryParam {
	if q.bodyAll {
		return nil
	}
	var out []QueryParam
	var path []*fieldPlan
	var walk func(p *msgPlan, entered []*msgPlan)
	walk = func(p *msgPlan, entered []*msgPlan) {
		for _, fp := range p.fields {
			path = append(path, fp)
			switch {
			case q.boundAlong(path):
			case fp.conv != nil:
				if name, ok := q.paramName(path, protoNames); ok {
					out = append(out, QueryParam{Name: name, Path: planFields(path)})
				}
			case fp.child != nil && !slices.Contains(entered, fp.child):
				walk(fp.child, append(entered, fp.child))
			}
			path = path[:len(path)-1]
		}
	}
	walk(q.root, []*msgPlan{q.root})
	return out
}

// Binds reports whether Bind would set a field from a parameter called
// name: one that is not ignored and resolves to a field that neither the
// path nor the body binds (as Bind resolves names: JSON or proto names,
// dotted). A document names its path parameters apart from these. It
// resolves as resolve does, without making its errors.
func (q *Query) Binds(name string) bool {
	if q.bodyAll {
		return false
	}
	if _, ignored := q.ignored.get(name); ignored {
		return false
	}
	var buf [8]*fieldPlan
	path := buf[:0]
	p := q.root
	for rest := name; len(path) < maxNameDepth; {
		comp, more := rest, false
		if i := strings.IndexByte(rest, '.'); i >= 0 {
			comp, rest, more = rest[:i], rest[i+1:], true
		}
		fp, ok := p.names.get(comp)
		if !ok {
			return false
		}
		path = append(path, fp)
		if q.boundAt(path, more) >= 0 {
			return false
		}
		if !more {
			return true
		}
		if fp.child == nil {
			return false
		}
		p = fp.child
	}
	return false
}

// boundAlong reports whether path is a bound field, lies under one, or
// (as a leaf) contains one: what checkBound rejects for a complete name.
func (q *Query) boundAlong(path []*fieldPlan) bool {
	for _, b := range q.bound {
		n := min(len(b), len(path))
		if samePath(b[:n], path[:n]) && (len(path) >= len(b) || path[len(path)-1].conv != nil) {
			return true
		}
	}
	return false
}

// paramName returns a name for path that q resolves back to path: the
// preferred names, else the other ones.
func (q *Query) paramName(path []*fieldPlan, protoNames bool) (string, bool) {
	for _, proto := range []bool{protoNames, !protoNames} {
		name := dottedName(path, proto)
		if _, ignored := q.ignored.get(name); ignored {
			continue
		}
		if got, err := q.resolve(nil, name); err == nil && samePath(got, path) {
			return name, true
		}
	}
	return "", false
}

func dottedName(path []*fieldPlan, protoNames bool) string {
	if len(path) == 1 { // the name as it is, not a copy
		if protoNames {
			return string(path[0].fd.Name())
		}
		return path[0].fd.JSONName()
	}
	var b []byte
	for i, fp := range path {
		if i > 0 {
			b = append(b, '.')
		}
		if protoNames {
			b = append(b, fp.fd.Name()...)
		} else {
			b = append(b, fp.fd.JSONName()...)
		}
	}
	return string(b)
}

func planFields(path []*fieldPlan) []protoreflect.FieldDescriptor {
	fds := make([]protoreflect.FieldDescriptor, len(path))
	for i, fp := range path {
		fds[i] = fp.fd
	}
	return fds
}
