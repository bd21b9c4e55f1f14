// Command protorest-under-test is a server under test for the Connect
// conformance suite (connectconformance --mode server): it reads a
// ServerCompatRequest on stdin, starts protorest as the request asks
// (protocol, HTTP version, TLS with the runner's certificate, client
// certificates, message receive limit), writes the ServerCompatResponse
// on stdout, and serves until SIGTERM or SIGINT. Two modes:
//
//   - remote: protorest serve (the binary -protorest names, built from
//     this checkout) in front of the suite's reference server
//     (-referenceserver), with the suite's descriptors;
//   - inprocess: a protorest.Gateway with this module's
//     ConformanceService registered on it, served by protorest.Serve.
//
// Every port it and its children listen on is in -ports, on 127.0.0.1.
// The services have no google.api.http rules, and neither mode
// auto-maps them: Connect, gRPC-Web and gRPC reach every method at its
// canonical path (POST /package.Service/Method) without a REST route,
// and a POST there of another Content-Type gets 415, as the suite asks
// of a server with no REST route in the way.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	conformancev1 "github.com/protorest/protorest/e2e/conformance/internal/proto/connectrpc/conformance/v1"
)

// A running server under test: where it listens, and how it is stopped.
type running struct {
	port int
	// done is closed when the server stops by itself (a child exits).
	done <-chan struct{}
	stop func()
}

func main() {
	mode := flag.String("mode", "inprocess", "remote (protorest serve in front of the reference server) or inprocess (a Gateway in this process)")
	ports := flag.String("ports", "58450-58499", "loopback ports to listen on, LO-HI")
	protorestBin := flag.String("protorest", "protorest", "remote: the protorest binary")
	referenceBin := flag.String("referenceserver", "referenceserver", "remote: the conformance suite's referenceserver binary")
	logDir := flag.String("log-dir", "", "remote: write the children's logs here, one file each (default: discard them)")
	readIdle := flag.Duration("read-idle-timeout", 5*time.Second, "protorest's read idle timeout (WithReadIdleTimeout, serve's --read-idle-timeout): well within the runner's 20s wait for a result (see limits.go)")
	var serveArgs repeated
	flag.Var(&serveArgs, "serve-arg", "remote: one more argument for protorest serve (repeatable)")
	flag.Parse()
	limits := limits{readIdleTimeout: *readIdle}
	if err := run(*mode, *ports, limits, remoteConfig{protorest: *protorestBin, referenceServer: *referenceBin, logDir: *logDir, serveArgs: serveArgs}); err != nil {
		fmt.Fprintln(os.Stderr, "protorest-under-test:", err)
		os.Exit(1)
	}
}

// run serves one ServerCompatRequest read from stdin until a signal.
func run(mode, ports string, limits limits, remote remoteConfig) error {
	portRange, err := parsePortRange(ports)
	if err != nil {
		return err
	}
	req := &conformancev1.ServerCompatRequest{}
	if err := readDelimited(os.Stdin, req); err != nil {
		return err
	}
	var certPEM, keyPEM []byte
	if req.GetUseTls() {
		if certPEM, keyPEM, err = serverCreds(req); err != nil {
			return err
		}
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer cancel()
	var srv *running
	switch mode {
	case "remote":
		srv, err = startRemote(ctx, req, certPEM, keyPEM, portRange, limits, remote)
	case "inprocess":
		srv, err = startInProcess(req, certPEM, keyPEM, portRange, limits)
	default:
		err = fmt.Errorf("-mode %q: want remote or inprocess", mode)
	}
	if err != nil {
		return err
	}
	defer srv.stop()
	resp := &conformancev1.ServerCompatResponse{Host: "127.0.0.1", Port: uint32(srv.port), PemCert: certPEM}
	if err := writeDelimited(os.Stdout, resp); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return nil
	case <-srv.done:
		return fmt.Errorf("the server stopped before it was told to")
	}
}

// repeated is a repeatable string flag.
type repeated []string

func (r *repeated) String() string     { return fmt.Sprint(*r) }
func (r *repeated) Set(s string) error { *r = append(*r, s); return nil }
