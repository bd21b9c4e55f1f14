package main

import (
	"testing"

	"github.com/protorest/protorest/bench"
)

// The report finds the peers by the names the suite gives them.
func TestPeerNames(t *testing.T) {
	for _, c := range []struct{ ours, suite string }{
		{floor, bench.FloorName},
		{gwInProc, bench.GRPCGatewayInProcessName},
		{gwTCP, bench.GRPCGatewayTCPName},
		{gwUnix, bench.GRPCGatewayUnixName},
		{prInProc, bench.ProtorestInProcessName},
		{prTCP, bench.ProtorestTCPName},
		{prUnix, bench.ProtorestUnixName},
		{grpcDirect, bench.GRPCDirectName},
	} {
		if c.ours != c.suite {
			t.Errorf("benchreport calls %q the peer the suite names %q", c.ours, c.suite)
		}
	}
}
