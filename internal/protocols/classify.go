package protocols

import (
	"net/http"
	"strings"
)

// A Protocol is the RPC protocol a request speaks, if any.
type Protocol uint8

// The protocols, as a request's headers tell them apart (connect-go's
// way): the Content-Type, Connect-Protocol-Version, and ?connect=v1 on a
// GET.
const (
	None        Protocol = iota
	Connect              // unary POST, GET ?connect=v1, application/connect+*
	GRPCWeb              // application/grpc-web[+codec]
	GRPCWebText          // application/grpc-web-text[+codec]
	GRPC                 // application/grpc[+codec]
)

// String is the protocol's name, as labels carry it: "connect",
// "grpc_web", "grpc"; "" for None.
func (p Protocol) String() string {
	switch p {
	case Connect:
		return "connect"
	case GRPCWeb, GRPCWebText:
		return "grpc_web"
	case GRPC:
		return "grpc"
	}
	return ""
}

// A Set is the protocols a gateway serves.
type Set uint8

// The bits of a Set; AllProtocols is the default.
const (
	ConnectOn Set = 1 << iota
	GRPCWebOn
	GRPCOn
	AllProtocols = ConnectOn | GRPCWebOn | GRPCOn
)

// Has reports whether s serves p.
func (s Set) Has(p Protocol) bool {
	switch p {
	case Connect:
		return s&ConnectOn != 0
	case GRPCWeb, GRPCWebText:
		return s&GRPCWebOn != 0
	case GRPC:
		return s&GRPCOn != 0
	}
	return false
}

// Of tells the protocol of r. The Content-Type of gRPC, gRPC-Web and
// Connect's streams, and Connect-Protocol-Version, name theirs whatever
// the HTTP method (the method's handler refuses a wrong one: 405) or
// the codec (415). A GET with connect=v1 is Connect's. sure is false for
// a Connect unary POST that does not say so (application/json or
// application/proto without Connect-Protocol-Version), which a REST rule
// of the same method and path serves instead.
func Of(r *http.Request) (p Protocol, sure bool) {
	if r.Method == http.MethodGet && hasConnectQuery(r.URL.RawQuery) {
		return Connect, true
	}
	rest, ok := strings.CutPrefix(mediaType(r.Header.Get("Content-Type")), "application/")
	switch {
	case ok && codecSuffix(rest, "grpc"):
		return GRPC, true
	case ok && codecSuffix(rest, "grpc-web"):
		return GRPCWeb, true
	case ok && codecSuffix(rest, "grpc-web-text"):
		return GRPCWebText, true
	case ok && strings.HasPrefix(rest, "connect+"):
		return Connect, true
	case r.Header.Get("Connect-Protocol-Version") != "":
		return Connect, true
	case r.Method == http.MethodPost && ok && (rest == "json" || rest == "proto"):
		return Connect, false
	}
	return None, false
}

// Sure reports whether r surely speaks one of the protocols (Of): such
// a call's compression is its protocol's own.
func Sure(r *http.Request) bool {
	p, sure := Of(r)
	return p != None && sure
}

// codecSuffix reports whether media is name or name+codec.
func codecSuffix(media, name string) bool {
	after, ok := strings.CutPrefix(media, name)
	return ok && (after == "" || after[0] == '+')
}

// mediaType is the media type of a Content-Type, lower-cased, without
// parameters.
func mediaType(v string) string {
	if i := strings.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	v = strings.TrimSpace(v)
	for i := 0; i < len(v); i++ {
		if c := v[i]; 'A' <= c && c <= 'Z' {
			return strings.ToLower(v)
		}
	}
	return v
}

// hasConnectQuery reports whether a query has connect=v1, which marks a
// Connect GET.
func hasConnectQuery(q string) bool {
	for q != "" {
		var kv string
		kv, q, _ = strings.Cut(q, "&")
		if kv == "connect=v1" {
			return true
		}
	}
	return false
}
