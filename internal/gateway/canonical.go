package gateway

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/plan"
)

// appendCanonical appends the canonical entry of md, an in-process
// method called through inv (plan.Canonical), to entries.
func appendCanonical(cfg *config.Config, entries plan.Entries, md protoreflect.MethodDescriptor, inv exchange.Invoker) (plan.Entries, error) {
	e, err := plan.Canonical(cfg, md, plan.Caller{Invoker: func(*bind.Request) exchange.Invoker { return inv }})
	if err != nil {
		return entries, err
	}
	return append(entries, e), nil
}

// splitCanonical separates the canonical entries (plan.RPCMethod) from
// the router's, returning their endpoints.
func splitCanonical(entries plan.Entries) (routed plan.Entries, canonical []*exchange.Endpoint) {
	for _, e := range entries {
		if e.Method == plan.RPCMethod {
			canonical = append(canonical, e.Value)
		} else {
			routed = append(routed, e)
		}
	}
	return routed, canonical
}
