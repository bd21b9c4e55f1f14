package main

import (
	"context"
	"net"
	"time"

	"github.com/protorest/protorest"

	conformancev1 "github.com/protorest/protorest/e2e/conformance/internal/proto/connectrpc/conformance/v1"
)

// startInProcess serves req with a Gateway in this process: the
// ConformanceService registered on it (served at its methods' canonical
// paths by the protocols; it has no google.api.http rules, and is not
// auto-mapped), the message receive limit as
// WithMaxRequestBodySize, limits' read idle timeout, TLS with certPEM and keyPEM when req asks
// (client certificates verified against req's), served by
// protorest.Serve on a port of ports.
func startInProcess(req *conformancev1.ServerCompatRequest, certPEM, keyPEM []byte, ports portRange, limits limits) (*running, error) {
	opts := []protorest.Option{protorest.WithReadIdleTimeout(limits.readIdleTimeout),
		protorest.WithDefaultTimeout(0)} // as remote.go: no default deadline
	if n := req.GetMessageReceiveLimit(); n > 0 {
		opts = append(opts, protorest.WithMaxRequestBodySize(int64(n)))
	}
	gw := protorest.NewGateway(opts...)
	conformancev1.RegisterConformanceServiceServer(gw, conformanceService{})
	srv := protorest.NewServer("", gw)
	if req.GetUseTls() {
		cfg, err := tlsConfig(req, certPEM, keyPEM)
		if err != nil {
			return nil, err
		}
		srv.TLSConfig = cfg
	}
	l, err := ports.listen()
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = protorest.Serve(srv, l)
	}()
	return &running{
		port: l.Addr().(*net.TCPAddr).Port,
		done: done,
		stop: func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if srv.Shutdown(ctx) != nil {
				_ = srv.Close()
			}
		},
	}, nil
}
