// Command vanguardproxy is vanguard-go in front of the gRPC backend at
// -upstream (internal/vanguardproxy), as a process: a contender of the
// throughput harness (scripts/throughput.sh).
//
//	vanguardproxy -listen 127.0.0.1:19403 -upstream 127.0.0.1:19400
package main

import (
	"net/http"

	"github.com/protorest/protorest/bench/internal/contender"
	"github.com/protorest/protorest/bench/internal/vanguardproxy"
)

func main() {
	contender.Main("vanguardproxy", nil, func(f contender.Flags) (http.Handler, error) {
		return vanguardproxy.New(f.Upstream)
	})
}
