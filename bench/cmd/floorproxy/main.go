// Command floorproxy is the floor of the throughput harness
// (scripts/throughput.sh) as a process: internal/floorproxy in front of
// the gRPC backend at -upstream.
//
//	floorproxy -listen 127.0.0.1:19401 -upstream 127.0.0.1:19400
package main

import (
	"net/http"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/protorest/protorest/bench/internal/contender"
	"github.com/protorest/protorest/bench/internal/floorproxy"
)

func main() {
	contender.Main("floorproxy", nil, func(f contender.Flags) (http.Handler, error) {
		conn, err := grpc.NewClient("passthrough:///"+f.Upstream, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return nil, err
		}
		return floorproxy.New(conn), nil
	})
}
