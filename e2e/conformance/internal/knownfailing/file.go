// Package knownfailing reads, regenerates and writes a known-failing
// list for the conformance runner (its --known-failing @FILE, which
// takes a pattern a line and skips lines that start with "#"), kept in
// blocks, one per reason:
//
//	# reason: gRPC: what protorest lacks, on one line
//	# select: **/Protocol:PROTOCOL_GRPC/Codec:CODEC_JSON/**
//	# cases: 236
//	Basic/HTTPVersion:2/Protocol:PROTOCOL_GRPC/Codec:CODEC_JSON/**
//	…
//
// The selectors (runner patterns) say which failing cases the reason
// explains: a case belongs to the first block one of whose selectors
// matches it. The patterns below them are generated from a run (Update):
// they match the block's failing cases and nothing else. The comment
// lines before the first block are the file's header; other comments,
// and the cases: line, are rewritten.
package knownfailing

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// A File is a known-failing list.
type File struct {
	Header []string
	Blocks []*Block
}

// A Block is the cases one reason explains.
type Block struct {
	Reason    string
	Selectors []string
	Patterns  []string
}

const (
	reasonPrefix = "# reason: "
	selectPrefix = "# select: "
	casesPrefix  = "# cases: "
)

// Parse reads a known-failing list. It fails on a pattern or a selector
// outside a block. (A block without selectors, as in a hand-written list
// of flaky cases, selects nothing for Update.)
func Parse(r io.Reader) (*File, error) {
	f := &File{}
	var b *Block
	lines := bufio.NewScanner(r)
	for n := 1; lines.Scan(); n++ {
		line := strings.TrimSpace(lines.Text())
		switch {
		case strings.HasPrefix(line, reasonPrefix):
			b = &Block{Reason: strings.TrimPrefix(line, reasonPrefix)}
			f.Blocks = append(f.Blocks, b)
		case strings.HasPrefix(line, selectPrefix):
			if b == nil {
				return nil, fmt.Errorf("line %d: a selector before the first reason", n)
			}
			b.Selectors = append(b.Selectors, strings.TrimPrefix(line, selectPrefix))
		case strings.HasPrefix(line, "#") || line == "":
			if b == nil {
				f.Header = append(f.Header, line)
			}
		default:
			if b == nil {
				return nil, fmt.Errorf("line %d: a pattern before the first reason", n)
			}
			b.Patterns = append(b.Patterns, line)
		}
	}
	if err := lines.Err(); err != nil {
		return nil, err
	}
	return f, nil
}

// Write writes the list as Parse reads it, with a cases: line per block
// (how many cases its patterns matched when they were made).
func (f *File) Write(w io.Writer, cases map[*Block]int) error {
	bw := bufio.NewWriter(w)
	for _, line := range f.Header {
		fmt.Fprintln(bw, line)
	}
	for _, b := range f.Blocks {
		fmt.Fprintln(bw, reasonPrefix+b.Reason)
		for _, s := range b.Selectors {
			fmt.Fprintln(bw, selectPrefix+s)
		}
		if n, ok := cases[b]; ok {
			fmt.Fprintf(bw, "%s%d\n", casesPrefix, n)
		}
		for _, p := range b.Patterns {
			fmt.Fprintln(bw, p)
		}
		fmt.Fprintln(bw)
	}
	return bw.Flush()
}
