// Command gatewayproxy is grpc-gateway v2's generated gateway of the
// Library (RegisterLibraryHandler, runtime.NewServeMux's defaults) in
// front of the gRPC backend at -upstream, as a process: a contender of
// the throughput harness (scripts/throughput.sh).
//
//	gatewayproxy -listen 127.0.0.1:19402 -upstream 127.0.0.1:19400
package main

import (
	"context"
	"net/http"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/protorest/protorest/bench/internal/contender"
	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

func main() {
	contender.Main("gatewayproxy", nil, func(f contender.Flags) (http.Handler, error) {
		conn, err := grpc.NewClient("passthrough:///"+f.Upstream, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return nil, err
		}
		mux := runtime.NewServeMux()
		if err := libraryv1.RegisterLibraryHandler(context.Background(), mux, conn); err != nil {
			return nil, err
		}
		return mux, nil
	})
}
