package exchange

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"

	"github.com/protorest/protorest/internal/httperr"
)

// Admit checks r against the limits on its target, its header lines and
// its query parameters, before it is routed: an error (414, 431, 400)
// when it is over one.
func (e *Env) Admit(r *http.Request) error {
	switch {
	case e.MaxURLBytes > 0 && targetOver(r.URL, e.MaxURLBytes):
		return httperr.New(http.StatusRequestURITooLong, codes.ResourceExhausted,
			"request URL longer than the limit of "+httperr.FormatBytes(int64(e.MaxURLBytes)))
	case e.MaxHeaders > 0 && headerLines(r.Header) > e.MaxHeaders:
		return httperr.New(http.StatusRequestHeaderFieldsTooLarge, codes.ResourceExhausted,
			"more request headers than the limit of "+strconv.Itoa(e.MaxHeaders))
	case e.MaxQueryParams > 0 && r.URL.RawQuery != "" && strings.Count(r.URL.RawQuery, "&")+1 > e.MaxQueryParams:
		return httperr.New(http.StatusBadRequest, codes.InvalidArgument,
			"more query parameters than the limit of "+strconv.Itoa(e.MaxQueryParams))
	}
	return nil
}

// targetOver reports whether the request target (the escaped path, and
// "?" and the query if there is one) is longer than limit. The escaped
// path, which allocates when the path has escapes, is built only when
// its bound (the raw path, or three bytes for each of the path's) could
// pass the limit: the router builds it again.
func targetOver(u *url.URL, limit int) bool {
	query := 0
	if u.RawQuery != "" || u.ForceQuery {
		query = 1 + len(u.RawQuery)
	}
	if max(len(u.RawPath), 3*len(u.Path))+query <= limit {
		return false
	}
	return len(u.EscapedPath())+query > limit
}

// headerLines counts the header lines of h.
func headerLines(h http.Header) int {
	n := 0
	for _, vs := range h {
		n += len(vs)
	}
	return n
}
