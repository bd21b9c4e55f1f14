package main

import (
	"encoding/binary"
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"
)

// maxCompatMessage bounds a size-delimited message read from the runner
// or the reference server (a few certificates at most).
const maxCompatMessage = 1 << 20

// readDelimited reads one message as the conformance runner writes it: a
// 4-byte big-endian length, then the message in the protobuf binary
// format. It fails on a short read or a length over maxCompatMessage.
func readDelimited(r io.Reader, m proto.Message) error {
	var prefix [4]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil {
		return fmt.Errorf("reading the length of a %s: %w", m.ProtoReflect().Descriptor().Name(), err)
	}
	n := binary.BigEndian.Uint32(prefix[:])
	if n > maxCompatMessage {
		return fmt.Errorf("a %s of %d bytes: over %d", m.ProtoReflect().Descriptor().Name(), n, maxCompatMessage)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return fmt.Errorf("reading a %s: %w", m.ProtoReflect().Descriptor().Name(), err)
	}
	return proto.Unmarshal(buf, m)
}

// writeDelimited writes m as readDelimited reads it.
func writeDelimited(w io.Writer, m proto.Message) error {
	buf, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	out := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(buf)), uint32(len(buf)))
	_, err = w.Write(append(out, buf...))
	return err
}
