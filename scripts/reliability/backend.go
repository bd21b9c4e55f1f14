package main

import (
	_ "embed"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

//go:embed probe.proto
var probeProto []byte

// probeService is the full name of the service in probe.proto.
const probeService = "reliability.v1.Probe"

// maxBytes bounds Bytes' answer.
const maxBytes = 64 << 20

// A backend serves probe.proto's service on loopback, with no generated
// code: one handler for every method, which counts the calls.
type backend struct {
	server *grpc.Server
	addr   string
	calls  atomic.Int64
	held   atomic.Int64 // calls of the methods that hold, in progress
}

// startBackend serves on a free loopback port.
func startBackend() (*backend, error) { return startBackendOn("127.0.0.1:0") }

// startBackendOn serves on addr, with more server options.
func startBackendOn(addr string, opts ...grpc.ServerOption) (*backend, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	b := &backend{addr: ln.Addr().String()}
	opts = append([]grpc.ServerOption{grpc.UnknownServiceHandler(b.handle), grpc.MaxRecvMsgSize(64 << 20), grpc.MaxSendMsgSize(maxBytes + 1024)}, opts...)
	b.server = grpc.NewServer(opts...)
	go b.server.Serve(ln)
	return b, nil
}

// Stop stops serving, cancelling the calls in flight.
func (b *backend) Stop() { b.server.Stop() }

// writeProto writes probe.proto into dir, for serve's --proto.
func writeProto(dir string) (string, error) {
	return "reliability/v1/probe.proto", writeFile(filepath.Join(dir, "reliability", "v1", "probe.proto"), probeProto)
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func (b *backend) handle(_ any, stream grpc.ServerStream) error {
	full, _ := grpc.MethodFromServerStream(stream)
	service, method, _ := strings.Cut(strings.TrimPrefix(full, "/"), "/")
	if service != probeService {
		return status.Errorf(codes.Unimplemented, "unknown service %s", service)
	}
	b.calls.Add(1)
	switch method {
	case "Sleep", "Hold", "Collect", "Talk":
		b.held.Add(1)
		defer b.held.Add(-1)
	}
	ctx := stream.Context()
	var in proto.Message
	var out any
	switch method {
	case "Ping", "Sleep", "Deadline", "Hold", "Collect", "Talk":
		in = &emptypb.Empty{}
	case "Echo":
		in = &structpb.Struct{}
	case "Bytes", "Flood":
		in = &wrapperspb.Int64Value{}
	case "Upload":
		in = &wrapperspb.BytesValue{}
	default:
		return status.Errorf(codes.Unimplemented, "unknown method %s", method)
	}
	if err := stream.RecvMsg(in); err != nil {
		return err
	}
	switch method {
	case "Ping", "Upload":
		out = &emptypb.Empty{}
	case "Flood":
		return flood(stream, in.(*wrapperspb.Int64Value).GetValue())
	case "Collect", "Talk":
		for {
			if err := stream.RecvMsg(in); err == io.EOF {
				break
			} else if err != nil {
				return err
			}
		}
		if method == "Talk" {
			return nil
		}
		out = &emptypb.Empty{}
	case "Echo":
		out = in
	case "Sleep", "Hold":
		select {
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		case <-time.After(10 * time.Minute):
		}
		out = &emptypb.Empty{}
	case "Deadline":
		d, ok := ctx.Deadline()
		if !ok {
			return status.Error(codes.FailedPrecondition, "the call has no deadline")
		}
		out = durationpb.New(time.Until(d))
	case "Bytes":
		n := in.(*wrapperspb.Int64Value).GetValue()
		if n < 0 || n > maxBytes {
			return status.Errorf(codes.InvalidArgument, "value: want 0 to %d", maxBytes)
		}
		out = zeros(n)
	}
	return stream.SendMsg(out)
}

// flood sends messages of n zero bytes on stream until it ends.
func flood(stream grpc.ServerStream, n int64) error {
	if n < 0 || n > maxBytes {
		return status.Errorf(codes.InvalidArgument, "value: want 0 to %d", maxBytes)
	}
	msg := wrapperspb.Bytes(make([]byte, n))
	for {
		if err := stream.SendMsg(msg); err != nil {
			return err
		}
	}
}
