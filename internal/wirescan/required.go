package wirescan

import "google.golang.org/protobuf/encoding/protowire"

// node is one message of a tracked type as proto.Unmarshal leaves it once
// all the input is merged, reduced to what proto.CheckInitialized looks
// at: which required fields are set, and the messages it holds that could
// lack one.
type node struct {
	p    *plan
	seen []uint64 // required fields set, by field.req
	// children are the singular message fields of tracked types that are
	// set, merged over every occurrence.
	children []child
	// bad: an element of a repeated field lacks a required field. Elements
	// are never dropped, so this is settled once the element is read.
	bad bool
	// maps holds, per map field of tracked values, the keys whose value
	// (the last entry's) lacks a required field.
	maps []mapState
}

type child struct {
	num protowire.Number
	n   *node
}

type mapState struct {
	num protowire.Number
	bad map[mapKey]struct{}
}

// mapKey is a map key as dynamicpb compares it: numbers and bools in n,
// strings in s.
type mapKey struct {
	s string
	n uint64
}

func newNode(p *plan) *node {
	nd := &node{p: p}
	if p.nreq > 0 {
		nd.seen = make([]uint64, (p.nreq+63)/64)
	}
	return nd
}

// set records an occurrence of f that read without error: a required
// field is set, and a oneof member drops the other members' messages.
func (nd *node) set(f *field) {
	if f.req >= 0 {
		nd.seen[f.req/64] |= 1 << (f.req % 64)
	}
	if f.oneof < 0 {
		return
	}
	for _, num := range nd.p.oneofs[f.oneof] {
		if num == f.num {
			continue
		}
		for i, c := range nd.children {
			if c.num == num {
				nd.children = append(nd.children[:i], nd.children[i+1:]...)
				break
			}
		}
	}
}

// child returns the node of singular field num, new if it is not set.
func (nd *node) child(num protowire.Number, p *plan) *node {
	for _, c := range nd.children {
		if c.num == num {
			return c.n
		}
	}
	c := newNode(p)
	nd.children = append(nd.children, child{num, c})
	return c
}

// mapValue records the value of one entry of map field num: it replaces
// any earlier entry with the same key.
func (nd *node) mapValue(num protowire.Number, key mapKey, ok bool) {
	var st *mapState
	for i := range nd.maps {
		if nd.maps[i].num == num {
			st = &nd.maps[i]
		}
	}
	if st == nil {
		if ok {
			return
		}
		nd.maps = append(nd.maps, mapState{num: num, bad: make(map[mapKey]struct{})})
		st = &nd.maps[len(nd.maps)-1]
	}
	if ok {
		delete(st.bad, key)
	} else {
		st.bad[key] = struct{}{}
	}
}

// initialized reports whether the message has all its required fields,
// and so has every message it holds.
func (nd *node) initialized() bool {
	if nd.bad {
		return false
	}
	for i := range nd.p.nreq {
		if nd.seen[i/64]&(1<<(i%64)) == 0 {
			return false
		}
	}
	for _, st := range nd.maps {
		if len(st.bad) > 0 {
			return false
		}
	}
	for _, c := range nd.children {
		if !c.n.initialized() {
			return false
		}
	}
	return true
}
