package bench

import (
	"slices"
	"strconv"
)

// A Route is one request the throughput harness (scripts/throughput.sh,
// cmd/throughput) sends to every contender under load.
type Route struct {
	// Name names the route in ROUTES and in the report: get, query,
	// post, list, stream.
	Name string
	// Op is the request, and for a unary route the gRPC call whose reply
	// the answer must equal.
	Op Op
	// Stream: the route calls StreamItems, a server stream; the answer
	// is a line of {"result": Item} for each item, and Op.GRPC is nil.
	Stream bool
}

// ListRouteItems is the n of the list route: about 100 KB of JSON.
const ListRouteItems = 380

// StreamRouteItems is the n of the stream route: that many messages.
const StreamRouteItems = 10

// Routes are the harness's routes: a small GET, a GET with five query
// parameters, a POST with a JSON body, a list of about 100 KB and a
// server stream.
var Routes = []Route{
	{Name: "get", Op: opNamed("GetBook")},
	{Name: "query", Op: opNamed("SearchBooks")},
	{Name: "post", Op: opNamed("CreateBook")},
	{Name: "list", Op: listItemsOp(ListRouteItems)},
	{Name: "stream", Stream: true, Op: Op{
		Name: "StreamItems-" + strconv.Itoa(StreamRouteItems),
		HTTP: Request{Method: "GET", Target: "/v1/items:stream?n=" + strconv.Itoa(StreamRouteItems)},
	}},
}

// SkippedRoutes are the routes a contender does not serve, and why.
var SkippedRoutes = map[string]map[string]string{
	VanguardName:             {"stream": "vanguard serves a REST server stream only of google.api.HttpBody"},
	GRPCGatewayInProcessName: {"stream": "grpc-gateway's RegisterHandlerServer answers a stream 501: not supported in the in-process transport"},
}

// The names of the harness's contenders that BenchmarkPeers does not
// have: the floor in front of a gRPC backend (internal/floorproxy), and
// vanguard-go (internal/vanguardproxy).
const (
	FloorProxyName = "floor-proxy"
	VanguardName   = "vanguard"
)

// opNamed is the operation of Ops named name.
func opNamed(name string) Op {
	return Ops[slices.IndexFunc(Ops, func(op Op) bool { return op.Name == name })]
}
