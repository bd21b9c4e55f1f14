package bind

import (
	"errors"
	"slices"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// maskPlans caches a MaskDeriver per message descriptor for
// DeriveFieldMask, so that it does no descriptor name lookups after the
// first call for a type. Code that can hold a MaskDeriver from
// registration should, and then this cache stays empty.
var maskPlans sync.Map // protoreflect.MessageDescriptor → *MaskDeriver

// A MaskDeriver derives update masks from JSON bodies for one message
// type; see [DeriveFieldMask]. It is built at registration and is safe for
// concurrent use.
type MaskDeriver struct {
	root *maskNode
	// RejectUnknown makes a key that names no field an error instead of
	// being skipped, as grpc-gateway does: a mask derived without it would
	// silently leave out what the client meant to update.
	RejectUnknown bool
}

// NewMaskDeriver builds the key tables for message md and the messages
// below it.
func NewMaskDeriver(md protoreflect.MessageDescriptor) *MaskDeriver {
	return &MaskDeriver{root: buildMaskNode(md, make(map[protoreflect.FullName]*maskNode))}
}

// maskNode is one message type's key table for DeriveFieldMask.
type maskNode struct {
	message protoreflect.FullName
	names   nameTable[*maskField] // json_name first, then proto name
}

type maskField struct {
	name  string    // proto name: the mask path component
	child *maskNode // the keys of an object value are paths below this one
	blind bool      // google.protobuf.Struct or Value: object keys are paths
}

// DeriveFieldMask returns the field-mask paths for the keys present in
// the JSON object body for message md, as grpc-gateway derives the update
// mask of a PATCH request. Keys may be json_names or proto names; the
// paths use proto names joined by dots. An object value of a singular
// message field adds the paths of its keys (an empty object adds the
// field's own path); the keys of a google.protobuf.Struct (or Value)
// object become paths too; maps, repeated fields and other well-known
// types end a path. Unknown keys are skipped. The paths are sorted. A body
// that is blank or not a JSON object gives no paths; one that is not valid
// UTF-8 or JSON is an error.
//
// DeriveFieldMask caches the key tables it builds for md for the life of
// the process; code that can build a [MaskDeriver] at registration should
// use that instead.
func DeriveFieldMask(md protoreflect.MessageDescriptor, body []byte) ([]string, error) {
	d, ok := maskPlans.Load(md)
	if !ok {
		d, _ = maskPlans.LoadOrStore(md, NewMaskDeriver(md))
	}
	return d.(*MaskDeriver).Derive(body)
}

// Derive returns the field-mask paths for the keys of the JSON object
// body, as [DeriveFieldMask] does. It allocates only the paths (and the
// keys that contain escapes).
func (d *MaskDeriver) Derive(body []byte) ([]string, error) {
	if !utf8.Valid(body) {
		return nil, errors.New("body is not valid UTF-8")
	}
	sc := scanner{b: body}
	sc.space()
	if sc.i == len(sc.b) {
		return nil, nil
	}
	var paths []string
	var err error
	if sc.b[sc.i] == '{' {
		err = d.object(&sc, d.root, false, "", &paths, 1)
	} else {
		err = sc.skip(1)
	}
	if err == nil {
		if sc.space(); sc.i != len(sc.b) {
			err = sc.fail("data after the JSON value")
		}
	}
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	return slices.Compact(paths), nil
}

// object reads the object at sc (its '{' included), appending the paths
// below prefix. node is the object's message type; blind means it is a
// Struct, whose keys are paths.
func (d *MaskDeriver) object(sc *scanner, node *maskNode, blind bool, prefix string, paths *[]string, depth int) error {
	if depth > maxJSONDepth {
		return sc.fail("nested too deeply")
	}
	sc.i++ // '{'
	if sc.space(); sc.peek() == '}' {
		sc.i++
		return nil
	}
	for {
		if sc.space(); sc.peek() != '"' {
			return sc.fail("expected an object key")
		}
		key, err := sc.key()
		if err != nil {
			return err
		}
		if sc.space(); sc.peek() != ':' {
			return sc.fail("expected ':'")
		}
		sc.i++
		sc.space()

		// The path component, and how to treat an object value.
		var name string
		var child *maskNode
		childBlind := blind
		if blind {
			name = string(key)
		} else if f, ok := node.names.get(string(key)); ok {
			name, child, childBlind = f.name, f.child, f.blind
		}
		switch {
		case name == "" && !blind && d.RejectUnknown:
			return &UnknownKeyError{Key: string(key), Message: node.message}
		case name == "" && !blind: // unknown key: skipped
			err = sc.skip(depth + 1)
		case sc.peek() == '{' && (child != nil || childBlind) && !sc.emptyObject():
			err = d.object(sc, child, childBlind, join(prefix, name), paths, depth+1)
		default:
			*paths = append(*paths, join(prefix, name))
			err = sc.skip(depth + 1)
		}
		if err != nil {
			return err
		}

		sc.space()
		switch sc.peek() {
		case ',':
			sc.i++
		case '}':
			sc.i++
			return nil
		default:
			return sc.fail("expected ',' or '}'")
		}
	}
}

func buildMaskNode(md protoreflect.MessageDescriptor, nodes map[protoreflect.FullName]*maskNode) *maskNode {
	if n, ok := nodes[md.FullName()]; ok {
		return n
	}
	n := &maskNode{message: md.FullName()}
	nodes[md.FullName()] = n
	fields := md.Fields()
	all := make([]*maskField, fields.Len())
	for i := range all {
		fd := fields.Get(i)
		f := &maskField{name: string(fd.Name())}
		if sub := fd.Message(); sub != nil && !fd.IsList() && !fd.IsMap() {
			switch sub.FullName() {
			case wktStruct, wktValue:
				f.blind = true
			default:
				if !isWellKnown(sub.FullName()) {
					f.child = buildMaskNode(sub, nodes)
				}
			}
		}
		all[i] = f
	}
	for i, f := range all {
		n.names.add(fields.Get(i).JSONName(), f)
	}
	for _, f := range all {
		n.names.add(f.name, f)
	}
	return n
}

// isWellKnown reports whether name is a google.protobuf message with a
// special JSON form, which a derived mask never descends into.
func isWellKnown(name protoreflect.FullName) bool {
	switch name {
	case wktTimestamp, wktDuration, wktFieldMask, wktValue, wktEmpty, wktStruct, wktListValue, wktAny:
		return true
	}
	return isWrapper(name)
}

// join appends a path component to a dotted prefix.
func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// UnknownKeyError reports a JSON key that names no field of Message, from
// a MaskDeriver with RejectUnknown set.
type UnknownKeyError struct {
	Key     string
	Message protoreflect.FullName
}

func (e *UnknownKeyError) Error() string {
	return "no field " + quote(e.Key) + " in message " + string(e.Message)
}
