package jsonscan

// Values returns an upper bound on the values in b, JSON text: every
// element of an array, every member's value of an object, and b itself
// (1 + the commas and the opening brackets outside strings). It does not
// validate b. The decoding budget uses it: what decoding holds grows with
// the values, not the bytes ("0," is a value in two bytes).
func Values(b []byte) int {
	n := 1
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
		case ',', '[', '{':
			n++
		}
	}
	return n
}
