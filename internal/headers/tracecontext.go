package headers

import "strings"

// W3C Trace Context (https://www.w3.org/TR/trace-context/): the gateway
// forwards a client's traceparent and tracestate only when they are
// valid, so that a backend (and its log, and its tracer's choice of
// parent) never gets a malformed one from the gateway.

// Tracestate limits of the W3C Trace Context: list members, and the
// characters of the whole header.
const (
	maxTracestateMembers = 32
	maxTracestateLen     = 512
)

// validTraceparent reports whether v is a traceparent the W3C Trace
// Context accepts: version "-" trace-id "-" parent-id "-" trace-flags in
// lower-case hex (2, 32, 16 and 2 digits), version ff refused, neither id
// all zeros; exactly that for version 00, and for a later version that
// followed by nothing or by "-" and more.
func validTraceparent(v string) bool {
	const n = len("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	if len(v) < n || (v[:2] == "00" && len(v) != n) || (len(v) > n && v[n] != '-') || v[:2] == "ff" {
		return false
	}
	if v[2] != '-' || v[35] != '-' || v[52] != '-' {
		return false
	}
	return lowerHex(v[:2]) && lowerHex(v[3:35]) && lowerHex(v[36:52]) && lowerHex(v[53:55]) &&
		strings.Trim(v[3:35], "0") != "" && strings.Trim(v[36:52], "0") != ""
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// validTracestate reports whether v (the tracestate lines, joined with
// commas) is a tracestate the W3C Trace Context accepts: at most 512
// characters; list members key=value separated by commas and optional
// spaces or tabs, empty ones allowed, at most 32 others, no key twice.
func validTracestate(v string) bool {
	if len(v) > maxTracestateLen {
		return false
	}
	var keys [maxTracestateMembers]string
	n := 0
	for member := range strings.SplitSeq(v, ",") {
		member = strings.Trim(member, " \t")
		if member == "" {
			continue
		}
		key, value, ok := strings.Cut(member, "=")
		if !ok || !validTracestateKey(key) || !validTracestateValue(value) || n == maxTracestateMembers {
			return false
		}
		for _, k := range keys[:n] {
			if k == key {
				return false
			}
		}
		keys[n] = key
		n++
	}
	return true
}

// validTracestateKey: a simple key (a lower-case letter, then up to 255
// of a-z 0-9 _ - * /), or tenant@system (tenant: a lower-case letter or
// digit, then up to 240 of those; system: a lower-case letter, then up to
// 13).
func validTracestateKey(k string) bool {
	tenant, system, multi := strings.Cut(k, "@")
	if !multi {
		return len(k) <= 256 && k != "" && isLCAlpha(k[0]) && keyChars(k[1:])
	}
	return tenant != "" && len(tenant) <= 241 && (isLCAlpha(tenant[0]) || isDigit(tenant[0])) && keyChars(tenant[1:]) &&
		system != "" && len(system) <= 14 && isLCAlpha(system[0]) && keyChars(system[1:])
}

func keyChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isLCAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '*' || c == '/') {
			return false
		}
	}
	return true
}

// validTracestateValue: 1 to 256 printable ASCII characters but "," and
// "=", spaces allowed but not last.
func validTracestateValue(v string) bool {
	if v == "" || len(v) > 256 || v[len(v)-1] == ' ' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c > 0x7e || c == ',' || c == '=' {
			return false
		}
	}
	return true
}

func isLCAlpha(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool   { return c >= '0' && c <= '9' }
