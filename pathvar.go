package protorest

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/httprule"
	"github.com/protorest/protorest/internal/route"
	"github.com/protorest/protorest/internal/text"
)

// isMultiSegment reports whether variable v of t is decoded as a
// multi-segment variable: it covers several segments, or "**".
func isMultiSegment(t *httprule.Template, v httprule.Variable) bool {
	return v.End-v.Start > 1 || t.Segments[v.Start].Kind == httprule.DeepWildcard
}

// pathValue percent-decodes the raw request text of the path variable
// name: fully for one segment, per WithPathUnescaping for several.
func (g *Gateway) pathValue(raw, name string, multi bool) (string, error) {
	var val string
	var err error
	if multi {
		val, err = route.UnescapeMulti(raw, g.cfg.unescape)
	} else {
		val, err = route.UnescapeSegment(raw)
	}
	if err != nil {
		return "", status.Errorf(codes.InvalidArgument, "path variable %q: malformed percent-encoding in %s", name, text.Quote(raw))
	}
	return val, nil
}
