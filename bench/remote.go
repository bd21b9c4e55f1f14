package bench

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// remotePeer is an http.Handler served by a real net/http server on
// loopback TCP and called with a real http.Client, which keeps its
// connections alive between requests.
type remotePeer struct {
	name    string
	baseURL string
	server  *http.Server
	client  *http.Client
	closers []func() error // run after the server closes
}

// serveRemote serves h on a new loopback port. closers release what h
// depends on, after the server has stopped.
func serveRemote(name string, h http.Handler, closers ...func() error) (*remotePeer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Join(err, closeAll(closers))
	}
	p := &remotePeer{
		name:    name,
		baseURL: "http://" + ln.Addr().String(),
		server:  &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second},
		client: &http.Client{Transport: &http.Transport{
			MaxIdleConnsPerHost: 16,
			DisableCompression:  true,
		}},
		closers: closers,
	}
	go p.server.Serve(ln)
	return p, nil
}

func (p *remotePeer) Name() string { return p.name }

func (p *remotePeer) Do(ctx context.Context, req Request) (Response, error) {
	var body io.Reader
	if req.Body != "" {
		body = strings.NewReader(req.Body)
	}
	r, err := http.NewRequestWithContext(ctx, req.Method, p.baseURL+req.Target, body)
	if err != nil {
		return Response{}, err
	}
	if req.Body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	res, err := p.client.Do(r)
	if err != nil {
		return Response{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return Response{}, err
	}
	return newResponse(res.StatusCode, res.Header, b), nil
}

func (p *remotePeer) Close() error {
	err := p.server.Close()
	p.client.CloseIdleConnections()
	return errors.Join(err, closeAll(p.closers))
}

// closeAll runs every closer, and returns their errors.
func closeAll(closers []func() error) error {
	var errs []error
	for _, c := range closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}
