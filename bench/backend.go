package bench

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// Network is how a gateway reaches its gRPC backend.
type Network string

const (
	TCP  Network = "tcp"  // loopback TCP
	Unix Network = "unix" // a Unix domain socket
)

// backend is a real grpc.Server serving the Library, and a client
// connection to it.
type backend struct {
	server *grpc.Server
	Conn   *grpc.ClientConn
	Addr   string // host:port, for TCP
	dir    string // the socket's directory, for Unix
}

// startBackend serves lib on a new listener of network and connects to
// it.
func startBackend(lib libraryv1.LibraryServer, network Network) (*backend, error) {
	b := &backend{}
	var ln net.Listener
	var target string
	var err error
	switch network {
	case TCP:
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		if err == nil {
			b.Addr = ln.Addr().String()
			target = "passthrough:///" + b.Addr
		}
	case Unix:
		// Under os.TempDir, not a test's directory: a socket's path must
		// fit in about 100 bytes.
		b.dir, err = os.MkdirTemp("", "bench-grpc-")
		if err == nil {
			sock := filepath.Join(b.dir, "grpc.sock")
			ln, err = net.Listen("unix", sock)
			target = "unix://" + sock
		}
	default:
		err = fmt.Errorf("unknown network %q", network)
	}
	if err != nil {
		return nil, errors.Join(err, b.Close())
	}
	b.server = grpc.NewServer()
	libraryv1.RegisterLibraryServer(b.server, lib)
	go b.server.Serve(ln)
	b.Conn, err = grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return b, nil
}

// Close closes the connection and stops the server.
func (b *backend) Close() error {
	var err error
	if b.Conn != nil {
		err = b.Conn.Close()
	}
	if b.server != nil {
		b.server.Stop()
	}
	if b.dir != "" {
		err = errors.Join(err, os.RemoveAll(b.dir))
	}
	return err
}
