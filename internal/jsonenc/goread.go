package jsonenc

import (
	"reflect"
	"unsafe"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// This file is the encoder's only use of unsafe, and the module's outside
// generated code: it reads the fields of generated messages' Go structs at
// their offsets (package gostruct finds the fields with reflect alone).
// Every read is of the type reflect found at that offset when the plan was
// built (findGoStruct), in a struct of the plan's own Go type (structOf
// checks it): a field of a proto scalar kind is read as a Go type of that
// kind's size and layout, a message pointer as a goStructPtr, a repeated
// message as a slice of them. Only reads: nothing is written through
// unsafe.

// goStructPtr points to the Go struct of a generated message (nil: none).
type goStructPtr unsafe.Pointer

// structOf returns the struct m points to, if m's type is typ (a pointer
// to a struct), or nil.
func structOf(m any, typ reflect.Type) goStructPtr {
	rv := reflect.ValueOf(m)
	if rv.Type() != typ {
		return nil
	}
	return goStructPtr(rv.UnsafePointer())
}

// fieldAt reads the field of type T at offset off in the struct sp
// points to.
func fieldAt[T any](sp goStructPtr, off uintptr) T {
	return *(*T)(unsafe.Add(unsafe.Pointer(sp), off))
}

// messageAt returns the message sp points to, whose pointer type is typ
// (sp may be nil: an empty message of that type).
func messageAt(typ reflect.Type, sp goStructPtr) protoreflect.Message {
	return reflect.NewAt(typ.Elem(), unsafe.Pointer(sp)).Interface().(protoreflect.ProtoMessage).ProtoReflect()
}
