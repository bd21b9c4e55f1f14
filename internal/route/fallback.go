package route

import "strings"

// DecodeSlashes returns path with each %2F and %2f decoded to "/", and
// whether there was one; other escapes, %3A and %25 included, stay as
// they are, so that the result is still an escaped path in which every
// "/" separates segments. It is the path [Tree.Match] falls back to with
// Tree.EncodedSlashFallback: what grpc-gateway's default (Legacy)
// unescaping routes on, minus the decoding of the other escapes, which
// the variables' own decoding does afterwards. Decoding a slash never
// makes a new escape, since "/" is not a hex digit. When path has no
// encoded slash, DecodeSlashes returns it as it is and does not allocate.
func DecodeSlashes(path string) (string, bool) {
	i := encodedSlash(path)
	if i < 0 {
		return path, false
	}
	var b strings.Builder
	b.Grow(len(path) - 2)
	for i >= 0 {
		b.WriteString(path[:i])
		b.WriteByte('/')
		path = path[i+3:]
		i = encodedSlash(path)
	}
	b.WriteString(path)
	return b.String(), true
}

// encodedSlash returns the offset of the first %2F or %2f escape in s, or
// -1. The "%" of an escape such as %25 is not the start of one: in
// "%252F" there is none.
func encodedSlash(s string) int {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '%')
		if j < 0 {
			return -1
		}
		i += j
		if i+2 >= len(s) {
			return -1
		}
		if s[i+1] == '2' && (s[i+2] == 'F' || s[i+2] == 'f') {
			return i
		}
		if ishex(s[i+1]) && ishex(s[i+2]) {
			i += 3
		} else {
			i++
		}
	}
}
