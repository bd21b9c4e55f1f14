package ws

import (
	"net/http"
	"net/url"
	"path"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// checkOrigin is coder/websocket's origin check (authenticateOrigin), made
// before websocket.Accept, which answers a refusal in plain text: here it
// is a 403 with a google.rpc.Status body, as every error. A request
// without Origin (not from a browser) passes; a page on the request's own
// host passes; another passes when one of patterns matches its host (or
// its scheme://host, for a pattern with "://"), as path.Match does,
// ignoring case.
func checkOrigin(r *http.Request, patterns []string) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return status.Error(codes.PermissionDenied, "WebSocket Origin is not a URL with a host")
	}
	if strings.EqualFold(r.Host, u.Host) {
		return nil
	}
	for _, p := range patterns {
		target := u.Host
		if strings.Contains(p, "://") {
			target = u.Scheme + "://" + u.Host
		}
		if ok, _ := path.Match(strings.ToLower(p), strings.ToLower(target)); ok {
			return nil
		}
	}
	return status.Error(codes.PermissionDenied, "WebSocket Origin not allowed: pages from other origins need WithWebSocketOrigins")
}
