package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
)

// inProcessPeer calls an http.Handler directly, with httptest's request
// and recorder: no network, no HTTP parsing.
type inProcessPeer struct {
	name    string
	handler http.Handler
	close   func() error
}

func (p *inProcessPeer) Name() string { return p.name }

func (p *inProcessPeer) Do(ctx context.Context, req Request) (Response, error) {
	var r *http.Request
	if req.Body == "" {
		r = httptest.NewRequestWithContext(ctx, req.Method, req.Target, nil)
	} else {
		r = httptest.NewRequestWithContext(ctx, req.Method, req.Target, strings.NewReader(req.Body))
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	p.handler.ServeHTTP(w, r)
	return newResponse(w.Code, w.Header(), w.Body.Bytes()), nil
}

func (p *inProcessPeer) Close() error {
	if p.close == nil {
		return nil
	}
	return p.close()
}
