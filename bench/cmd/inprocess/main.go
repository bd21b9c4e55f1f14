// Command inprocess serves bench's in-memory Library in the same process
// as its HTTP/JSON gateway, as a contender of the throughput harness
// (scripts/throughput.sh) in library mode, by -kind:
//
//   - protorest: a protorest.Gateway with the Library registered on it
//     as on a grpc.Server, served by protorest.NewServer;
//   - grpc-gateway: grpc-gateway's RegisterLibraryHandlerServer on
//     runtime.NewServeMux;
//   - floor: bench's hand-written net/http handler (bench.NewFloorHandler).
//
// The other two are served with protorest.NewServer's settings too.
//
//	inprocess -kind protorest -listen 127.0.0.1:19405
package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"

	"github.com/protorest/protorest"
	"github.com/protorest/protorest/bench"
	"github.com/protorest/protorest/bench/internal/contender"
	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

func main() {
	contender.Main("inprocess", protorest.NewServer, func(f contender.Flags) (http.Handler, error) {
		lib := bench.NewLibrary()
		switch f.Kind {
		case "protorest":
			gw := protorest.NewGateway()
			libraryv1.RegisterLibraryServer(gw, lib)
			return gw, nil
		case "grpc-gateway":
			mux := runtime.NewServeMux()
			if err := libraryv1.RegisterLibraryHandlerServer(context.Background(), mux, lib); err != nil {
				return nil, err
			}
			return mux, nil
		case "floor":
			return bench.NewFloorHandler(lib), nil
		}
		return nil, fmt.Errorf("-kind %q: want protorest, grpc-gateway or floor", f.Kind)
	})
}
