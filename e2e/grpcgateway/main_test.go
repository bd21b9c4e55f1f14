//go:build protorest_gwsuite && linux

// This file takes the place of main_test.go in a scratch copy of
// grpc-gateway v2.32.0's examples/internal/integration package
// (scripts/e2e-grpcgateway.sh puts it there), so that grpc-gateway's own
// integration tests, integration_test.go and client_test.go unmodified,
// run against protorest instead of grpc-gateway:
//
//   - :8088, grpc-gateway's gateway.Run, is `protorest serve` (the binary
//     named by -protorest) in front of the example gRPC server, with
//     descriptors compiled from grpc-gateway's .proto files as shipped.
//   - :8089, grpc-gateway's in-process gateway, is protorest as a library
//     in this process: a Gateway with RegisterRemote and the descriptors
//     of the generated code linked in, in front of a second instance of
//     the example server. (protorest's in-process registration,
//     pb.RegisterXxxServer(gw, impl), would need the example server's
//     implementations, which package server does not export.)
//   - runGateway, which tests call for gateways with ServeMux options, is
//     the same library gateway, with the options translated as
//     MIGRATING.md §3 maps them: the marshaler and the forward-response
//     options, the only ones the tests pass (see translate).
//
// The gRPC server runs in this process, as in grpc-gateway's harness:
// some tests read its state (server.ExcessBodyServer_RetrieveContextRPC).
package integration_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/examples/internal/server"
	gwruntime "github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/protorest/protorest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/grpclog"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"
)

var (
	endpoint     = flag.String("endpoint", "localhost:9090", "endpoint of the gRPC service")
	network      = flag.String("network", "tcp", `one of "tcp" or "unix". Must be consistent to -endpoint`)
	protorestCmd = flag.String("protorest", "", "the protorest binary, run as protorest serve on :8088")
	moduleRoot   = flag.String("module_root", "../../..", "grpc-gateway's module root: serve's --import-path")
	serveLog     = flag.String("serve_log", "", "file for protorest serve's output (default: stderr)")
)

// services are the services grpc-gateway's example gateway registers
// (examples/internal/gateway/gateway.go, newGateway), and protoFiles the
// files that define them, relative to the module root.
var (
	services = []string{
		"grpc.gateway.examples.internal.proto.examplepb.EchoService",
		"grpc.gateway.examples.internal.proto.examplepb.UnannotatedEchoService",
		"grpc.gateway.examples.internal.proto.examplepb.StreamService",
		"grpc.gateway.examples.internal.proto.examplepb.ABitOfEverythingService",
		"grpc.gateway.examples.internal.proto.examplepb.FlowCombination",
		"grpc.gateway.examples.internal.proto.examplepb.ExcessBodyService",
		"grpc.gateway.examples.internal.proto.examplepb.NonStandardService",
		"grpc.gateway.examples.internal.proto.examplepb.ResponseBodyService",
	}
	protoFiles = []string{
		"examples/internal/proto/examplepb/echo_service.proto",
		"examples/internal/proto/examplepb/unannotated_echo_service.proto",
		"examples/internal/proto/examplepb/stream.proto",
		"examples/internal/proto/examplepb/a_bit_of_everything.proto",
		"examples/internal/proto/examplepb/flow_combination.proto",
		"examples/internal/proto/examplepb/excess_body.proto",
		"examples/internal/proto/examplepb/non_standard_names.proto",
		"examples/internal/proto/examplepb/response_body_service.proto",
	}
)

// failedGateways holds, by port, why runGateway could not start a
// gateway, so that waitForGateway says so at once instead of polling.
var failedGateways sync.Map

// runGateway serves protorest as a library on addr in front of -endpoint,
// with opts translated, until ctx is done.
func runGateway(ctx context.Context, addr string, opts ...gwruntime.ServeMuxOption) error {
	err := serveLibrary(ctx, addr, *network, *endpoint, opts)
	if err != nil {
		if _, port, perr := net.SplitHostPort(addr); perr == nil {
			failedGateways.Store(port, err)
		}
	}
	return err
}

// serveLibrary serves a protorest Gateway on addr, routing the services of
// the gRPC server at network/target with the generated code's
// descriptors, until ctx is done.
func serveLibrary(ctx context.Context, addr, network, target string, opts []gwruntime.ServeMuxOption) error {
	gwOpts, err := translate(opts)
	if err != nil {
		return err
	}
	dialOpts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if network == "unix" {
		target = "unix://" + target
	}
	conn, err := grpc.NewClient(target, dialOpts...)
	if err != nil {
		return err
	}
	defer conn.Close()
	gw := protorest.NewGateway(gwOpts...)
	if err := gw.RegisterRemote(ctx, conn, protorest.WithRemoteFiles(protoregistry.GlobalFiles, services...)); err != nil {
		return err
	}
	mux := http.NewServeMux()
	// The example gateway's own readiness check, which waitForGateway polls.
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.Handle("/", gw)
	s := &http.Server{Addr: addr, Handler: mux}
	go func() {
		<-ctx.Done()
		s.Shutdown(context.Background())
	}()
	if err := s.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// translate turns the ServeMux options the tests pass into protorest
// options, as MIGRATING.md §3 maps them: WithMarshalerOption for "*" with
// a *runtime.JSONPb becomes WithMarshalOptions and WithUnmarshalOptions;
// WithForwardResponseOption becomes WithResponseHook, whose
// runtime.HTTPPathPattern is r.Pattern. An option that changes anything
// else is not seen, so the options are applied to a ServeMux and read
// back; a marshaler of another kind is an error.
func translate(opts []gwruntime.ServeMuxOption) ([]protorest.Option, error) {
	if len(opts) == 0 {
		return nil, nil
	}
	mux := gwruntime.NewServeMux(opts...)
	var out []protorest.Option
	_, m := gwruntime.MarshalerForRequest(mux, &http.Request{Header: http.Header{}})
	switch m := m.(type) {
	case *gwruntime.HTTPBodyMarshaler: // the default
	case *gwruntime.JSONPb:
		out = append(out, protorest.WithMarshalOptions(m.MarshalOptions), protorest.WithUnmarshalOptions(m.UnmarshalOptions))
	default:
		return nil, fmt.Errorf("harness: no protorest equivalent for the marshaler %T", m)
	}
	if fwd := mux.GetForwardResponseOptions(); len(fwd) > 0 {
		out = append(out, protorest.WithResponseHook(func(w http.ResponseWriter, r *http.Request, resp proto.Message, _ metadata.MD) error {
			ctx, err := gwruntime.AnnotateContext(r.Context(), mux, r, "", gwruntime.WithHTTPPathPattern(r.Pattern))
			if err != nil {
				return err
			}
			for _, f := range fwd {
				if err := f(ctx, w, resp); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	return out, nil
}

// waitForGateway polls http://localhost:port/healthz for a 200, for 10
// seconds at most.
func waitForGateway(ctx context.Context, port uint16) error {
	ch := time.After(10 * time.Second)
	for {
		if err, ok := failedGateways.Load(fmt.Sprint(port)); ok {
			return err.(error)
		}
		r, err := http.Get(fmt.Sprintf("http://localhost:%d/healthz", port))
		if err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("GET /healthz: %s", r.Status)
		}
		grpclog.Infof("Waiting for localhost:%d to get ready", port)
		select {
		case <-ctx.Done():
			return err
		case <-ch:
			return err
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// startServe runs protorest serve on :8088 in front of -endpoint, with
// descriptors from grpc-gateway's .proto files. If serve exits by itself,
// its error goes to failed; stop sends it SIGTERM and reports how it
// exited.
func startServe(failed chan<- error) (stop func() error, err error) {
	if *protorestCmd == "" {
		return nil, errors.New("-protorest (the protorest binary) is required")
	}
	upstream := *endpoint
	if *network == "unix" {
		upstream = "unix://" + upstream
	}
	root, err := filepath.Abs(*moduleRoot)
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "--upstream", upstream, "--listen", "localhost:8088", "--import-path", root}
	for _, f := range protoFiles {
		args = append(args, "--proto", f)
	}
	// A gateway left on :8088 (by an earlier run) would answer for serve.
	l, err := net.Listen("tcp", "localhost:8088")
	if err != nil {
		return nil, fmt.Errorf("port 8088 is taken: %v", err)
	}
	l.Close()
	cmd := exec.Command(*protorestCmd, args...)
	cmd.Dir = root
	// serve ends with this process, even when a test times out.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if *serveLog != "" {
		f, err := os.Create(*serveLog)
		if err != nil {
			return nil, err
		}
		cmd.Stdout, cmd.Stderr = f, f
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var stopping atomic.Bool
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		if !stopping.Load() {
			failed <- fmt.Errorf("protorest serve exited: %v", err)
		}
		exited <- err
	}()
	return func() error {
		stopping.Store(true)
		cmd.Process.Signal(syscall.SIGTERM)
		return <-exited
	}, nil
}

// runServers starts the example gRPC server, protorest serve on :8088 and
// the library gateway on :8089 with a gRPC server of its own.
func runServers(ctx context.Context) (<-chan error, func() error) {
	ch := make(chan error, 3)
	// Listening before protorest serve starts spares it a failed first
	// connection and grpc-go's backoff.
	l, err := net.Listen(*network, *endpoint)
	if err != nil {
		ch <- fmt.Errorf("cannot run grpc service: %v", err)
		return ch, func() error { return nil }
	}
	go func() {
		if err := server.ServeGRPC(ctx, l); err != nil {
			ch <- fmt.Errorf("cannot run grpc service: %v", err)
		}
	}()
	stop, err := startServe(ch)
	if err != nil {
		ch <- fmt.Errorf("cannot run protorest serve: %v", err)
		stop = func() error { return nil }
	}
	go func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			ch <- err
			return
		}
		go server.ServeGRPC(ctx, l)
		if err := serveLibrary(ctx, ":8089", "tcp", l.Addr().String(), nil); err != nil {
			ch <- fmt.Errorf("cannot run the protorest library gateway: %v", err)
		}
	}()
	return ch, stop
}

// TestMain starts the servers, runs the tests once both gateways answer,
// then stops protorest serve, which must exit 0. Its own failures are
// lines that start with "harness:".
func TestMain(m *testing.M) {
	flag.Parse()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errCh, stopServe := runServers(ctx)
	fatal := func(err error) {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}

	ready := make(chan error, 1)
	go func() {
		for _, port := range []uint16{8088, 8089} {
			if err := waitForGateway(ctx, port); err != nil {
				ready <- fmt.Errorf("waitForGateway(ctx, %d) failed with %v; want success", port, err)
				return
			}
		}
		ready <- nil
	}()
	select {
	case err := <-errCh:
		fatal(err)
	case err := <-ready:
		if err != nil {
			fatal(err)
		}
	}

	ch := make(chan int, 1)
	go func() { ch <- m.Run() }()
	select {
	case err := <-errCh:
		fatal(err)
	case status := <-ch:
		if err := stopServe(); err != nil {
			fatal(fmt.Errorf("protorest serve did not exit 0 on SIGTERM: %v", err))
		}
		cancel()
		os.Exit(status)
	}
}
