package bind

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// QueryOptions configure query binding. The zero value is protorest's
// default: unknown parameters are errors, nothing is ignored, and '+' in a
// value is a space.
type QueryOptions struct {
	// IgnoreUnknown drops parameters whose name does not resolve to a
	// field, instead of failing the request with InvalidArgument. It does
	// not drop parameters that resolve to a field but cannot be bound.
	IgnoreUnknown bool
	// Ignored lists parameter names that are always dropped before lookup,
	// such as "api_key". A name matches when it equals the parameter's name
	// as sent or as percent-decoded.
	Ignored []string
	// LiteralPlus keeps '+' in values as '+'. By default '+' is a space, as
	// in HTML forms and grpc-gateway.
	LiteralPlus bool
}

// A Query binds query parameters into request messages of one type for one
// rule. It is built once, at registration, and is safe for concurrent
// use.
type Query struct {
	root          *msgPlan
	typeName      string         // the request message's full name, for errors
	bound         [][]*fieldPlan // paths bound by the path or the body
	boundNames    []string       // their dotted proto names
	bodyAll       bool
	ignoreUnknown bool
	plus          bool // '+' decodes to a space
	ignored       nameTable[struct{}]
}

// msgPlan is one message type's field table for query names.
type msgPlan struct {
	names  nameTable[*fieldPlan] // json_name first, then proto name
	fields []*fieldPlan          // in declaration order
}

// fieldPlan is what a query parameter naming one field does.
type fieldPlan struct {
	fd    protoreflect.FieldDescriptor
	oneof protoreflect.OneofDescriptor // the real or synthetic oneof, or nil
	child *msgPlan                     // a name may continue into this message
	// through, when a name continues past this field, explains why that
	// is an error rather than an unknown name: "a repeated field" or "a
	// map field".
	through string
	conv    *converter // nil when the field cannot be set from a string
	// what and detail describe the field when conv is nil.
	what, detail string
}

// NewQuery builds the query plan for request messages of type md. bound
// lists the field paths the rule binds from the path or the body; a
// parameter naming a bound field, a field under it, or a message that
// contains it fails with InvalidArgument. bodyAll means the rule's body is
// "*": then every parameter is rejected as unknown unless ignored.
func NewQuery(md protoreflect.MessageDescriptor, bound []*Field, bodyAll bool, opts QueryOptions) *Query {
	q := &Query{
		typeName:      string(md.FullName()),
		bodyAll:       bodyAll,
		ignoreUnknown: opts.IgnoreUnknown,
		plus:          !opts.LiteralPlus,
	}
	for _, name := range opts.Ignored {
		q.ignored.add(name, struct{}{})
	}
	plans := make(map[protoreflect.FullName]*msgPlan)
	q.root = buildMsgPlan(md, plans)
	for _, f := range bound {
		if f == nil {
			continue
		}
		if p := q.planPath(f.path); p != nil {
			q.bound = append(q.bound, p)
			q.boundNames = append(q.boundNames, f.name)
		}
	}
	return q
}

// buildMsgPlan returns the plan for md, building it and the plans of the
// messages reachable through singular message fields. plans memoizes by
// full name, which makes recursive messages (Inner.deeper) finite.
func buildMsgPlan(md protoreflect.MessageDescriptor, plans map[protoreflect.FullName]*msgPlan) *msgPlan {
	if p, ok := plans[md.FullName()]; ok {
		return p
	}
	p := &msgPlan{}
	plans[md.FullName()] = p
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		fp := &fieldPlan{fd: fd, oneof: fd.ContainingOneof()}
		fp.conv, fp.what, fp.detail = newConverter(fd)
		switch {
		case fd.IsMap():
			fp.through = "a map field"
		case fd.IsList():
			fp.through = "a repeated field"
		case fd.Message() != nil && !hasStringForm(fd.Message()):
			fp.child = buildMsgPlan(fd.Message(), plans)
		}
		p.fields = append(p.fields, fp)
	}
	for _, fp := range p.fields {
		p.names.add(fp.fd.JSONName(), fp)
	}
	for _, fp := range p.fields {
		p.names.add(string(fp.fd.Name()), fp)
	}
	return p
}

// planPath maps a resolved field path onto q's plans, or returns nil if
// the path leaves them. A path into a well-known type that the query sets
// whole from a string ({ts.seconds}) maps to that field: a parameter
// naming it would override the path.
func (q *Query) planPath(path []protoreflect.FieldDescriptor) []*fieldPlan {
	out := make([]*fieldPlan, 0, len(path))
	p := q.root
	for _, fd := range path {
		if p == nil {
			if n := len(out); n > 0 && out[n-1].fd.Message() != nil && hasStringForm(out[n-1].fd.Message()) {
				return out
			}
			return nil
		}
		var found *fieldPlan
		for _, fp := range p.fields {
			if fp.fd.Number() == fd.Number() {
				found = fp
				break
			}
		}
		if found == nil {
			return nil
		}
		out = append(out, found)
		p = found.child
	}
	return out
}

// span is a range of the path buffer: the field path of a singular
// parameter already bound.
type span struct{ start, end int }

// Bind parses rawQuery (r.URL.RawQuery, still escaped) and stores each
// parameter into m.
//
// The query is split on '&' and each piece at its first '='; a piece with
// no '=' has the value "", and empty pieces and names are skipped. A name
// is percent-decoded (never '+'-decoded), split on '.', and each component
// looked up as a json_name, then as a proto name; every component but the
// last must name a singular message field. Values are percent-decoded,
// '+' as a space unless LiteralPlus. A repeated field appends each value
// in order.
//
// The request fails with InvalidArgument for a malformed '%' escape, an
// unknown name (unless ignored), a name bound by the path or the body, a
// name that reaches into a repeated or map field, a singular field given
// twice, a second member of a oneof that already has one set (by the body
// too), or a value its field cannot take.
func (q *Query) Bind(m protoreflect.Message, rawQuery string) error {
	var pathArr [16]*fieldPlan
	var seenArr [8]span
	path, seen := pathArr[:0], seenArr[:0]
	for rawQuery != "" {
		name, rawValue, use, badName := q.nextParam(&rawQuery)
		if badName {
			return invalidArgument("malformed percent-encoding in query parameter name " + quote(name))
		}
		if !use {
			continue
		}
		if q.bodyAll {
			if q.ignoreUnknown {
				continue
			}
			return invalidArgument("unknown query parameter " + quote(name) + " for " + q.typeName +
				`: the rule's body is "*", so the request takes no query parameters`)
		}

		base := len(path)
		var err error
		path, err = q.resolve(path, name)
		if err != nil {
			return err
		}
		if len(path) == base { // unknown and ignored
			continue
		}
		cur := path[base:]
		leaf := cur[len(cur)-1]
		if leaf.conv == nil {
			return invalidArgument("cannot set " + leaf.what + " " + quote(name) + " from a query parameter" + suffix(leaf.detail))
		}
		if !leaf.conv.list && seenBefore(seen, path, cur) {
			return invalidArgument("query parameter " + quote(name) + " given more than once; field " +
				quote(planNames(cur)) + " is not repeated")
		}

		value, ok := unescape(rawValue, q.plus)
		if !ok {
			return invalidArgument("malformed percent-encoding in the value of query parameter " + quote(name))
		}
		parent := m
		for i, fp := range cur {
			if fp.oneof != nil {
				if set := parent.WhichOneof(fp.oneof); set != nil && set != fp.fd {
					return oneofConflict("query parameter", name, fp.oneof, set)
				}
			}
			if i < len(cur)-1 {
				parent = parent.Mutable(fp.fd).Message()
			}
		}
		c := leaf.conv
		if c.list {
			v, problem := c.scalar(value)
			if problem != "" {
				return invalidValue("query parameter", name, value, problem)
			}
			parent.Mutable(c.fd).List().Append(v)
			path = path[:base]
			continue
		}
		if problem := c.set(parent, value); problem != "" {
			return invalidValue("query parameter", name, value, problem)
		}
		seen = append(seen, span{base, len(path)})
	}
	return nil
}

// nextParam takes the first parameter off *rawQuery, split on '&' and
// then at its first '=' (no '=': the value ""), and returns its name,
// percent-decoded (never '+'-decoded), and its value, still escaped. use
// is false for a parameter to pass over: an empty name, or one ignored
// (as it came, or decoded). badName says the name's escape is malformed;
// name is then the name as it came.
func (q *Query) nextParam(rawQuery *string) (name, rawValue string, use, badName bool) {
	piece := *rawQuery
	if i := strings.IndexByte(piece, '&'); i >= 0 {
		piece, *rawQuery = piece[:i], piece[i+1:]
	} else {
		*rawQuery = ""
	}
	rawName := piece
	if i := strings.IndexByte(piece, '='); i >= 0 {
		rawName, rawValue = piece[:i], piece[i+1:]
	}
	if rawName == "" {
		return "", "", false, false
	}
	if _, ok := q.ignored.get(rawName); ok {
		return "", "", false, false
	}
	if strings.IndexByte(rawName, '%') < 0 {
		return rawName, rawValue, true, false
	}
	name, ok := unescape(rawName, false)
	if !ok {
		return rawName, "", false, true
	}
	if _, ok := q.ignored.get(name); ok {
		return "", "", false, false
	}
	return name, rawValue, true, false
}

// seenBefore reports whether cur, the field path of a singular
// parameter, is one of those already bound (seen, spans of path).
func seenBefore(seen []span, path, cur []*fieldPlan) bool {
	for _, s := range seen {
		if samePath(path[s.start:s.end], cur) {
			return true
		}
	}
	return false
}

// maxNameDepth bounds the components of a parameter name, so that a
// recursive message (Inner.deeper) cannot be nested without limit; the
// gateway's default JSON depth limit is the same.
const maxNameDepth = 100

// resolve appends to path the plans of name's components. When the name
// is unknown and q ignores unknown names, path is returned unchanged.
func (q *Query) resolve(path []*fieldPlan, name string) ([]*fieldPlan, error) {
	base := len(path)
	p := q.root
	for rest := name; ; {
		comp, more := rest, false
		if i := strings.IndexByte(rest, '.'); i >= 0 {
			comp, rest, more = rest[:i], rest[i+1:], true
		}
		fp, ok := p.names.get(comp)
		if !ok {
			if q.ignoreUnknown {
				return path[:base], nil
			}
			return path, invalidArgument("unknown query parameter " + quote(name) + " for " + q.typeName)
		}
		if len(path)-base == maxNameDepth {
			return path, invalidArgument("query parameter " + quote(name) + " nests more than " +
				strconv.Itoa(maxNameDepth) + " fields deep")
		}
		path = append(path, fp)
		if err := q.checkBound(name, path[base:], more); err != nil {
			return path, err
		}
		if !more {
			return path, nil
		}
		if fp.child == nil {
			if fp.through != "" {
				return path, invalidArgument("query parameter " + quote(name) + " is not allowed: " +
					quote(planNames(path[base:])) + " is " + fp.through)
			}
			if q.ignoreUnknown {
				return path[:base], nil
			}
			return path, invalidArgument("unknown query parameter " + quote(name) + " for " + q.typeName)
		}
		p = fp.child
	}
}

// checkBound fails when cur (the plans of a name resolved so far) is a
// bound field or under one, or, when the name is complete (!more), when
// it contains one.
func (q *Query) checkBound(name string, cur []*fieldPlan, more bool) error {
	if i := q.boundAt(cur, more); i >= 0 {
		return invalidArgument("query parameter " + quote(name) + " is not allowed: field " +
			quote(q.boundNames[i]) + " is bound by the path or the body")
	}
	return nil
}

// boundAt returns the index of the bound path that makes cur fail
// checkBound, or -1.
func (q *Query) boundAt(cur []*fieldPlan, more bool) int {
	for i, b := range q.bound {
		n := min(len(b), len(cur))
		if (len(cur) < len(b) && more) || !samePath(b[:n], cur[:n]) {
			continue
		}
		return i
	}
	return -1
}

func samePath(a, b []*fieldPlan) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// planNames joins the proto names of path with dots.
func planNames(path []*fieldPlan) string {
	var b strings.Builder
	for i, fp := range path {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(string(fp.fd.Name()))
	}
	return b.String()
}

func suffix(detail string) string {
	if detail == "" {
		return ""
	}
	return ": " + detail
}
