// Package negotiate picks codecs from Content-Type and Accept headers
// without allocating: media types are compared ASCII case-insensitively
// against a fixed list built at start-up.
package negotiate

import "strings"

// MediaType returns the type/subtype of a Content-Type value, without
// parameters and surrounding spaces. The result is a slice of v.
func MediaType(v string) string {
	if i := strings.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}

// Index returns the position in types of the media type of contentType
// (parameters ignored, case-insensitive), or -1.
func Index(types []string, contentType string) int {
	mt := MediaType(contentType)
	if mt == "" {
		return -1
	}
	for i, t := range types {
		if strings.EqualFold(t, mt) {
			return i
		}
	}
	return -1
}

// Accept returns the position in types of the best match for the Accept
// header value accept, or -1 when it names none of them. Preference goes
// to the highest q-value, then to the more specific range (type/subtype
// over type/* over */*), then to the earlier range in the header. A range
// with a wildcard matches preferred when preferred is one of the types it
// covers, else the first type it covers. Ranges with q=0 exclude nothing
// else but never match.
func Accept(types []string, accept string, preferred int) int {
	best, bestQ, bestSpec := -1, -1, -1
	for accept != "" {
		var r string
		if i := strings.IndexByte(accept, ','); i >= 0 {
			r, accept = accept[:i], accept[i+1:]
		} else {
			r, accept = accept, ""
		}
		mt, params := r, ""
		if i := strings.IndexByte(r, ';'); i >= 0 {
			mt, params = r[:i], r[i+1:]
		}
		mt = strings.TrimSpace(mt)
		if mt == "" {
			continue
		}
		q := quality(params)
		if q <= 0 {
			continue
		}
		idx, spec := match(types, mt, preferred)
		if idx < 0 {
			continue
		}
		if q > bestQ || (q == bestQ && spec > bestSpec) {
			best, bestQ, bestSpec = idx, q, spec
		}
	}
	return best
}

// match finds which of types the media range mt covers, and how specific
// the range is (2 exact, 1 type/*, 0 */*).
func match(types []string, mt string, preferred int) (int, int) {
	slash := strings.IndexByte(mt, '/')
	if slash < 0 {
		return -1, 0
	}
	major, minor := mt[:slash], mt[slash+1:]
	switch {
	case major == "*" && minor == "*":
		if preferred >= 0 {
			return preferred, 0
		}
		return 0, 0
	case minor == "*":
		if preferred >= 0 && hasMajor(types[preferred], major) {
			return preferred, 1
		}
		for i, t := range types {
			if hasMajor(t, major) {
				return i, 1
			}
		}
		return -1, 1
	}
	for i, t := range types {
		if strings.EqualFold(t, mt) {
			return i, 2
		}
	}
	return -1, 2
}

func hasMajor(t, major string) bool {
	return len(t) > len(major) && t[len(major)] == '/' && strings.EqualFold(t[:len(major)], major)
}

// quality parses the q parameter of a media range into thousandths
// (RFC 9110 §12.4.2: at most three decimals). A missing q is 1000; a
// malformed one is treated as 1000, as most servers do.
func quality(params string) int {
	for params != "" {
		var p string
		if i := strings.IndexByte(params, ';'); i >= 0 {
			p, params = params[:i], params[i+1:]
		} else {
			p, params = params, ""
		}
		p = strings.TrimSpace(p)
		if len(p) < 2 || (p[0] != 'q' && p[0] != 'Q') || p[1] != '=' {
			continue
		}
		return parseQ(p[2:])
	}
	return 1000
}

func parseQ(v string) int {
	if v == "" {
		return 1000
	}
	switch v[0] {
	case '0':
		q, scale := 0, 100
		if len(v) > 1 {
			if v[1] != '.' || len(v) > 5 {
				return 1000
			}
			for _, c := range v[2:] {
				if c < '0' || c > '9' {
					return 1000
				}
				q += int(c-'0') * scale
				scale /= 10
			}
		}
		return q
	case '1':
		return 1000
	}
	return 1000
}
