package bench

import (
	"context"
	"net/http"
)

// Request is one HTTP request of the Library's API.
type Request struct {
	Method string
	Target string // the path and the query
	Body   string // JSON, or empty for none
}

// Response is a peer's answer, read in full.
type Response struct {
	Status      int
	ContentType string
	Body        []byte
}

// An HTTPPeer serves the Library's HTTP/JSON API.
type HTTPPeer interface {
	// Name names the peer in benchmark and test names.
	Name() string
	// Do sends req and reads the whole response.
	Do(ctx context.Context, req Request) (Response, error)
	// Close releases the peer's servers and connections.
	Close() error
}

// newResponse is the Response of status and header with body.
func newResponse(status int, header http.Header, body []byte) Response {
	return Response{Status: status, ContentType: header.Get("Content-Type"), Body: body}
}
