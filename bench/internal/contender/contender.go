// Package contender runs a contender of the throughput harness
// (scripts/throughput.sh) as a process of its own, so that the harness
// can measure its CPU time and memory alone: an HTTP server on -listen,
// HTTP/1.1 and HTTP/2 (h2c in plaintext, or TLS with -tls-cert and
// -tls-key), with the settings of protorest.NewServer, until SIGTERM or
// SIGINT.
package contender

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"
)

// Flags are a contender's command line.
type Flags struct {
	Listen   string // host:port to serve on
	Upstream string // host:port of the gRPC backend, for a remote contender
	Kind     string // which one, for a program that runs several
	TLSCert  string // serve TLS with this certificate (PEM)
	TLSKey   string // and this key
	// CPUProfile names a file that gets a CPU profile of the process,
	// from start to exit (go tool pprof), to compare with serve's
	// (PROTOREST_CPUPROFILE).
	CPUProfile string
}

// Main parses the command line of the program name and serves the
// handler that build returns until a signal; newServer makes the server
// (nil: NewServer). It exits 1 on error, 2 on bad usage.
func Main(name string, newServer func(addr string, h http.Handler) *http.Server, build func(Flags) (http.Handler, error)) {
	var f Flags
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	fs.StringVar(&f.Listen, "listen", "127.0.0.1:0", "host:port to serve HTTP/1.1 and HTTP/2 on")
	fs.StringVar(&f.Upstream, "upstream", "", "host:port of the gRPC backend")
	fs.StringVar(&f.Kind, "kind", "", "which contender, for a program that runs several")
	fs.StringVar(&f.TLSCert, "tls-cert", "", "serve TLS (HTTP/2 by ALPN) with this certificate chain (PEM)")
	fs.StringVar(&f.TLSKey, "tls-key", "", "the key (PEM) of -tls-cert")
	fs.StringVar(&f.CPUProfile, "cpuprofile", "", "write a CPU profile of the process to this file at exit")
	fs.Parse(os.Args[1:])
	if f.CPUProfile != "" {
		stop, err := startCPUProfile(f.CPUProfile)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
		defer stop()
	}
	if newServer == nil {
		newServer = NewServer
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, name, f, newServer, build); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

// startCPUProfile starts a CPU profile into path and returns the
// function that ends it.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

func serve(ctx context.Context, name string, f Flags, newServer func(string, http.Handler) *http.Server, build func(Flags) (http.Handler, error)) error {
	h, err := build(f)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", f.Listen)
	if err != nil {
		return err
	}
	srv := newServer(f.Listen, h)
	errc := make(chan error, 1)
	go func() {
		if f.TLSCert != "" {
			errc <- srv.ServeTLS(lis, f.TLSCert, f.TLSKey)
		} else {
			errc <- srv.Serve(lis)
		}
	}()
	fmt.Printf("%s: serving on %s\n", name, lis.Addr())
	select {
	case err = <-errc:
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = srv.Shutdown(shutdown)
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// NewServer is an http.Server for h on addr with protorest.NewServer's
// settings, so that every contender is served alike: HTTP/1.1, and
// HTTP/2 over TLS or h2c with at most 100 streams a connection; 10 s to
// send headers, 120 s idle, 64 KiB of headers. (It is not
// protorest.NewServer itself, so that the other contenders' programs do
// not link protorest.)
func NewServer(addr string, h http.Handler) *http.Server {
	srv := &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		HTTP2:             &http.HTTP2Config{MaxConcurrentStreams: 100},
		Protocols:         new(http.Protocols),
	}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetHTTP2(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	return srv
}
