package bind

import (
	"errors"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/jsonscan"
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
	sc := jsonscan.Scanner{LoneSurrogates: true} // as encoding/json
	sc.Reset(body, maxJSONDepth)
	sc.Space()
	if sc.AtEnd() {
		return nil, nil
	}
	var paths []string
	var err error
	if sc.Peek() == '{' {
		_, err = d.object(&sc, d.root, false, "", &paths)
	} else if !sc.Skip(maxJSONDepth) {
		err = valueError(&sc)
	}
	if err == nil {
		if sc.Space(); !sc.AtEnd() {
			err = syntaxError(&sc, "data after the JSON value")
		}
	}
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	return slices.Compact(paths), nil
}

// object reads the object at sc, appending the paths below prefix, and
// reports whether it was empty. node is the object's message type; blind
// means it is a Struct, whose keys are paths.
func (d *MaskDeriver) object(sc *jsonscan.Scanner, node *maskNode, blind bool, prefix string, paths *[]string) (empty bool, _ error) {
	empty, ok := sc.Open('{')
	if !ok {
		return false, syntaxError(sc, "nested too deeply")
	}
	for more := !empty; more; {
		if sc.Peek() != '"' {
			return false, syntaxError(sc, "expected an object key")
		}
		key, ok := sc.Str()
		if !ok {
			return false, syntaxError(sc, "bad string")
		}
		// The path component, and how to treat an object value.
		var name string
		var child *maskNode
		childBlind := blind
		if blind {
			name = string(key)
		} else if f, ok := node.names.get(string(key)); ok {
			name, child, childBlind = f.name, f.child, f.blind
		}
		if sc.Space(); !sc.Consume(':') {
			return false, syntaxError(sc, "expected ':'")
		}
		switch {
		case name == "" && !blind && d.RejectUnknown:
			return false, &UnknownKeyError{Key: string(key), Message: node.message}
		case name == "" && !blind: // unknown key: skipped
			if !sc.Skip(maxJSONDepth) {
				return false, valueError(sc)
			}
		case sc.Peek() == '{' && (child != nil || childBlind):
			path := join(prefix, name)
			leaf, err := d.object(sc, child, childBlind, path, paths)
			if err != nil {
				return false, err
			}
			if leaf { // an empty object sets the field itself
				*paths = append(*paths, path)
			}
		default:
			*paths = append(*paths, join(prefix, name))
			if !sc.Skip(maxJSONDepth) {
				return false, valueError(sc)
			}
		}
		if more, ok = sc.More('}'); !ok {
			return false, syntaxError(sc, "expected ',' or '}'")
		}
	}
	return empty, nil
}

// maxJSONDepth bounds the arrays and objects open at once in a body
// DeriveFieldMask reads, as encoding/json does.
const maxJSONDepth = 10000

func syntaxError(sc *jsonscan.Scanner, what string) error {
	return errors.New("invalid JSON at offset " + strconv.Itoa(sc.Pos()) + ": " + what)
}

// valueError describes a value Skip refused.
func valueError(sc *jsonscan.Scanner) error {
	if c := sc.Peek(); (c == '{' || c == '[') && sc.Depth() >= maxJSONDepth {
		return syntaxError(sc, "nested too deeply")
	}
	return syntaxError(sc, "expected a value")
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
