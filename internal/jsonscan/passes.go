package jsonscan

// Two passes over JSON text that do not validate it, and so do not use
// the Scanner: Compact is given JSON already known to be valid, and
// NestingDepth must measure invalid JSON too (a depth error wins over
// protojson's syntax error, wherever in the input each is), which a
// validating scanner stops short of.

// NestingDepth returns the deepest nesting of JSON objects and arrays in b,
// stopping early once it exceeds max. It skips string contents (including
// escaped quotes) and does not validate anything else: protojson does that.
func NestingDepth(b []byte, max int) int {
	depth, deepest := 0, 0
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > max {
					return deepest
				}
			}
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// Compact removes, in place, the whitespace outside strings of b, which
// must be valid JSON, and returns the shortened slice.
func Compact(b []byte) []byte {
	w := 0
	inString := false
	for r := 0; r < len(b); r++ {
		c := b[r]
		if inString {
			switch c {
			case '\\':
				b[w] = c
				w++
				r++
				c = b[r]
			case '"':
				inString = false
			}
		} else {
			switch c {
			case ' ', '\t', '\n', '\r':
				continue
			case '"':
				inString = true
			}
		}
		b[w] = c
		w++
	}
	return b[:w]
}

// IsBlank reports whether b holds only JSON whitespace (or nothing): a
// request body that is no value at all.
func IsBlank(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return false
		}
	}
	return true
}
