package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	conformancev1 "github.com/protorest/protorest/e2e/conformance/internal/proto/connectrpc/conformance/v1"
)

// remoteConfig is what the remote mode runs: the binaries, where their
// logs go, and extra arguments for protorest serve.
type remoteConfig struct {
	protorest       string
	referenceServer string
	logDir          string
	serveArgs       []string
}

// slowStart is how long a start may take before it is reported on
// stderr (the runner waits 10 s for the ServerCompatResponse).
const slowStart = 2 * time.Second

// startAttempts is how many ports a child is tried on before giving up
// (another of the runner's servers may take a free port first).
const startAttempts = 5

// startRemote serves req with protorest serve in front of the suite's
// reference server, which serves gRPC over h2c with no limit of its own:
// what the suite sees is protorest's. serve gets the suite's descriptors
// as a descriptor set, limits, the listener's TLS files, and
// the message receive limit as --max-body-size.
func startRemote(ctx context.Context, req *conformancev1.ServerCompatRequest, certPEM, keyPEM []byte, ports portRange, limits limits, cfg remoteConfig) (*running, error) {
	dir, err := os.MkdirTemp("", "protorest-conformance-")
	if err != nil {
		return nil, err
	}
	var children []*child
	stop := func() {
		for i := len(children) - 1; i >= 0; i-- {
			children[i].stop(3 * time.Second)
		}
		os.RemoveAll(dir)
	}
	began := time.Now()
	upstream, upstreamPort, err := startReferenceServer(ports, cfg)
	if err != nil {
		stop()
		return nil, err
	}
	upstreamReady := time.Since(began)
	children = append(children, upstream)
	args, err := serveArgs(dir, req, certPEM, keyPEM, upstreamPort, limits)
	if err != nil {
		stop()
		return nil, err
	}
	serve, port, err := startServe(ctx, ports, cfg, append(args, cfg.serveArgs...))
	if err != nil {
		stop()
		return nil, err
	}
	children = append(children, serve)
	if took := time.Since(began); took > slowStart {
		fmt.Fprintf(os.Stderr, "protorest-under-test: slow start: %v (the reference server %v), the runner waits 10s\n", took, upstreamReady)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-upstream.exited:
		case <-serve.exited:
		}
		close(done)
	}()
	return &running{port: port, done: done, stop: stop}, nil
}

// startReferenceServer starts the suite's reference server for gRPC over
// HTTP/2 without TLS on a port of ports, as the runner would start it
// (a ServerCompatRequest on its stdin, its response on its stdout).
func startReferenceServer(ports portRange, cfg remoteConfig) (*child, int, error) {
	var lastErr error
	for range startAttempts {
		port, err := ports.free()
		if err != nil {
			return nil, 0, err
		}
		stdin, stdinW := io.Pipe()
		stdoutR, stdout := io.Pipe()
		c, err := startChild("referenceserver-"+strconv.Itoa(port), cfg.logDir, cfg.referenceServer,
			[]string{"-bind", "127.0.0.1", "-port", strconv.Itoa(port)}, stdin, stdout, "")
		if err != nil {
			return nil, 0, err
		}
		go func() {
			<-c.exited
			stdout.Close()
			stdinW.Close()
		}()
		upstreamReq := &conformancev1.ServerCompatRequest{
			Protocol:    conformancev1.Protocol_PROTOCOL_GRPC,
			HttpVersion: conformancev1.HTTPVersion_HTTP_VERSION_2,
		}
		resp := &conformancev1.ServerCompatResponse{}
		err = writeDelimited(stdinW, upstreamReq)
		// It reads one message. Closing its stdin also ends the copy into
		// it, which cmd.Wait waits for: left open, a reference server
		// that exits (its port taken) would never be seen to.
		stdinW.Close()
		if err == nil {
			err = readDelimited(stdoutR, resp)
		}
		if err == nil {
			go io.Copy(io.Discard, stdoutR) // it writes nothing more; never block it
			return c, int(resp.GetPort()), nil
		}
		c.stop(time.Second)
		lastErr = fmt.Errorf("referenceserver on port %d: %w", port, err)
		fmt.Fprintln(os.Stderr, "protorest-under-test:", lastErr)
	}
	return nil, 0, lastErr
}

// serveArgs is protorest serve's command line for req, but --listen: the
// upstream, the descriptors (written into dir), no default deadline, a short
// drain, limits' read idle timeout, and the TLS files (written into dir) and body limit req asks
// for.
func serveArgs(dir string, req *conformancev1.ServerCompatRequest, certPEM, keyPEM []byte, upstreamPort int, limits limits) ([]string, error) {
	descriptors := filepath.Join(dir, "conformance.binpb")
	if err := writeDescriptorSet(descriptors); err != nil {
		return nil, err
	}
	args := []string{"serve",
		"--upstream", net.JoinHostPort("127.0.0.1", strconv.Itoa(upstreamPort)),
		"--descriptor-set", descriptors,
		// No default deadline: the suite checks that a call without one
		// reaches the service without one (its request_info echoes it).
		"--default-timeout", "0",
		"--drain-timeout", "1s",
		"--read-idle-timeout", limits.readIdleTimeout.String(),
	}
	if req.GetUseTls() {
		files := map[string][]byte{"cert.pem": certPEM, "key.pem": keyPEM}
		args = append(args, "--tls-cert", filepath.Join(dir, "cert.pem"), "--tls-key", filepath.Join(dir, "key.pem"))
		if ca := req.GetClientTlsCert(); len(ca) > 0 {
			files["client-ca.pem"] = ca
			args = append(args, "--tls-client-ca", filepath.Join(dir, "client-ca.pem"))
		}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
				return nil, err
			}
		}
	}
	if n := req.GetMessageReceiveLimit(); n > 0 {
		args = append(args, "--max-body-size", strconv.FormatUint(uint64(n), 10))
	}
	return args, nil
}

// startServe starts protorest serve with args on a port of ports and
// waits until it says it serves (trying another port if it exits first,
// the port taken meanwhile).
func startServe(ctx context.Context, ports portRange, cfg remoteConfig, args []string) (*child, int, error) {
	var lastErr error
	for range startAttempts {
		port, err := ports.free()
		if err != nil {
			return nil, 0, err
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		c, err := startChild("serve-"+strconv.Itoa(port), cfg.logDir, cfg.protorest, append(args, "--listen", addr), nil, nil, serveReadyLine)
		if err != nil {
			return nil, 0, err
		}
		err = waitReady(ctx, c, 8*time.Second)
		if err == nil {
			return c, port, nil
		}
		c.stop(time.Second)
		lastErr = fmt.Errorf("protorest serve on %s: %w", addr, err)
		fmt.Fprintln(os.Stderr, "protorest-under-test:", lastErr)
		if !errors.Is(err, errExited) {
			break
		}
	}
	return nil, 0, lastErr
}

// serveReadyLine is in the line protorest serve logs once it listens.
const serveReadyLine = "protorest serving"

// waitReady waits until c is ready, exits (errExited), ctx ends or
// timeout passes.
func waitReady(ctx context.Context, c *child, timeout time.Duration) error {
	select {
	case <-c.ready:
		return nil
	case <-c.exited:
		return errExited
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(timeout):
		return fmt.Errorf("not ready after %v", timeout)
	}
}
