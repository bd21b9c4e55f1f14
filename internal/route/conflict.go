package route

import (
	"strings"

	"github.com/protorest/protorest/internal/httprule"
)

// A ConflictError reports that [Tree.Add] was given an entry with the
// same method, verb and shape as one added before: every request one of
// them would match, the other would match too, so the second could never
// be reached (or would silently shadow the first).
type ConflictError struct {
	// New and Existing describe the rejected entry and the one it
	// collides with as method, template and name, e.g.
	// "GET /v1/{id} (pkg.Svc.M)".
	New, Existing string
	// Method is the method of both entries, and Path a request path that
	// both match, e.g. "/v1/x".
	Method, Path string
}

// Error names both entries and a request that both match, as in
// "GET /v3/{id} (B8) conflicts with GET /v3/{name=*} (B7): both match
// GET /v3/x".
func (e *ConflictError) Error() string {
	return e.New + " conflicts with " + e.Existing + ": both match " + e.Method + " " + e.Path
}

// examplePath returns a request path that t matches: its literals, "x"
// for each "*" or "**" (a "**" followed by segments needs one), and
// its verb.
func examplePath(t *httprule.Template) string {
	if len(t.Segments) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, s := range t.Segments {
		b.WriteByte('/')
		if s.Kind == httprule.Literal {
			b.WriteString(s.Value)
		} else {
			b.WriteByte('x')
		}
	}
	if t.Verb != "" {
		b.WriteByte(':')
		b.WriteString(t.Verb)
	}
	return b.String()
}
