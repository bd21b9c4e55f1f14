// Package text shortens and cleans the text of error messages that reach
// clients: inputs quoted in them, protojson's and proto's errors, WebSocket
// close reasons. A client's input can be megabytes long; what is said
// back about it is not.
package text

import (
	"strings"
	"unicode/utf8"
)

// maxQuote is how many bytes of a quoted input token an error message keeps.
const maxQuote = 48

// CleanError turns a protojson or proto error into a message fit for a
// client: the "proto:" prefix is removed and every quoted or trailing token
// longer than a short prefix is cut, because protojson repeats the
// offending input, which can be megabytes long.
func CleanError(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "proto:")
	msg = strings.TrimLeft(msg, " \u00a0")
	return Truncate(msg, 200)
}

// Truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Cut(s, n) + "…"
}

// Cut returns the longest prefix of s of at most n bytes that ends on a
// rune boundary.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Quote quotes s for an error message, keeping at most a short prefix.
func Quote(s string) string {
	return `"` + Truncate(s, maxQuote) + `"`
}
