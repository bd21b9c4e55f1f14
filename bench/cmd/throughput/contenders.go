package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/protorest/protorest/bench"
)

// A contender is a gateway the harness measures, and how to run it.
type contender struct {
	name   string
	remote bool // in front of the backend; else the Library in-process
	label  string
	// args is its command line: the program in bin and its arguments,
	// to listen on addr, call the backend at upstream, and serve TLS
	// when cert is not "".
	args func(bin, addr, upstream, cert, key string, serveFlags []string) []string
}

// contenders are every contender, in the order of each round and of the
// report: remote, then in-process, the floor first.
var contenders = []contender{
	{name: bench.FloorProxyName, remote: true, label: "floor proxy", args: program("floorproxy", "")},
	{name: "grpc-gateway", remote: true, label: "grpc-gateway", args: program("gatewayproxy", "")},
	{name: bench.VanguardName, remote: true, label: "vanguard", args: program("vanguardproxy", "")},
	{name: "protorest", remote: true, label: "protorest serve", args: protorestServe("protorest")},
	// Not measured by default: serve without its access log, and serve
	// built at another revision (scripts/throughput.sh's BASE).
	{name: "protorest-no-access-log", remote: true, label: "protorest serve --access-log=false", args: protorestServe("protorest", "--access-log=false")},
	{name: "protorest-base", remote: true, label: "protorest serve at BASE", args: protorestServe("protorest-base")},
	{name: bench.FloorName, label: "floor in-process", args: program("inprocess", "floor")},
	{name: bench.GRPCGatewayInProcessName, label: "grpc-gateway in-process", args: program("inprocess", "grpc-gateway")},
	{name: bench.ProtorestInProcessName, label: "protorest in-process", args: program("inprocess", "protorest")},
}

// program is the command line of one of bench's contender programs.
func program(name, kind string) func(bin, addr, upstream, cert, key string, _ []string) []string {
	return func(bin, addr, upstream, cert, key string, _ []string) []string {
		args := []string{filepath.Join(bin, name), "-listen", addr}
		if upstream != "" {
			args = append(args, "-upstream", upstream)
		}
		if kind != "" {
			args = append(args, "-kind", kind)
		}
		if cert != "" {
			args = append(args, "-tls-cert", cert, "-tls-key", key)
		}
		return args
	}
}

// protorestServe is the command line of protorest serve, the program
// in bin named program: its defaults (the access log on, to a file), and
// flags, then the run's serveFlags.
func protorestServe(program string, flags ...string) func(bin, addr, upstream, cert, key string, serveFlags []string) []string {
	return func(bin, addr, upstream, cert, key string, serveFlags []string) []string {
		args := []string{filepath.Join(bin, program), "serve", "--listen", addr, "--upstream", upstream}
		if cert != "" {
			args = append(args, "--tls-cert", cert, "--tls-key", key)
		}
		args = append(args, flags...)
		return append(args, serveFlags...)
	}
}

// defaultContenders are the contenders a run measures unless told.
var defaultContenders = []string{
	bench.FloorProxyName, "grpc-gateway", bench.VanguardName, "protorest",
	bench.FloorName, bench.GRPCGatewayInProcessName, bench.ProtorestInProcessName,
}

// contenderNamed is the contender named name.
func contenderNamed(name string) (contender, error) {
	for _, c := range contenders {
		if c.name == name {
			return c, nil
		}
	}
	var names []string
	for _, c := range contenders {
		names = append(names, c.name)
	}
	return contender{}, fmt.Errorf("no contender %q: want %s", name, strings.Join(names, ", "))
}

// A protocol is how the load reaches a contender.
type protocol struct {
	name  string // h1, h2c, h2
	label string
	tls   bool
}

var protocols = []protocol{
	{"h1", "HTTP/1.1 (wrk)", false},
	{"h2c", "HTTP/2 over h2c (h2load)", false},
	{"h2", "HTTP/2 over TLS (h2load)", true},
}

func protocolNamed(name string) (protocol, error) {
	for _, p := range protocols {
		if p.name == name {
			return p, nil
		}
	}
	return protocol{}, fmt.Errorf("no protocol %q: want h1, h2c or h2", name)
}

func routeNamed(name string) (bench.Route, error) {
	for _, r := range bench.Routes {
		if r.Name == name {
			return r, nil
		}
	}
	return bench.Route{}, fmt.Errorf("no route %q: want get, query, post, list or stream", name)
}
