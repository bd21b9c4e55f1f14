package main

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// checkNotSelf refuses a listen address that is the upstream's own: serve
// would call itself for ever. Hosts compare after resolving only what
// needs no lookup: "localhost" and loopback addresses are this machine,
// and so is any host of an upstream when the listen host is empty or
// unspecified (0.0.0.0, ::), which listens on all of them. Names that
// need DNS are not looked up. Only host:port targets, with or without
// dns: (whatever its DNS server) or passthrough:, can be the listener;
// unix: and the other schemes never are.
func checkNotSelf(listen, upstream string) error {
	scheme, target, err := splitTarget(upstream)
	if err != nil || scheme != "dns" && scheme != "passthrough" {
		return nil // --upstream reports its own error
	}
	uhost, uport, err := net.SplitHostPort(target)
	if err != nil {
		return nil // grpc.NewClient judges the target
	}
	lhost, lport, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("--listen %q: %v", listen, err)
	}
	if !samePort(lport, uport) {
		return nil
	}
	lwild, lloop := hostKind(lhost)
	_, uloop := hostKind(uhost)
	if lwild && (uloop || uhost == "" || isLocalAddr(uhost)) || lloop && uloop || sameIP(lhost, uhost) {
		return fmt.Errorf("--listen %q is the --upstream %q: serve would call itself; listen on another port", listen, upstream)
	}
	return nil
}

// hostKind says whether a host is empty or unspecified (all addresses),
// or this machine's loopback.
func hostKind(host string) (wildcard, loopback bool) {
	if host == "" {
		return true, false
	}
	if strings.EqualFold(host, "localhost") {
		return false, true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err != nil {
		return false, false
	}
	return ip.IsUnspecified(), ip.IsLoopback()
}

func sameIP(a, b string) bool {
	x, err1 := netip.ParseAddr(a)
	y, err2 := netip.ParseAddr(b)
	return err1 == nil && err2 == nil && x.Unmap() == y.Unmap()
}

func samePort(a, b string) bool {
	if a == b {
		return true
	}
	pa, err1 := net.LookupPort("tcp", a)
	pb, err2 := net.LookupPort("tcp", b)
	return err1 == nil && err2 == nil && pa == pb
}

// isLocalAddr reports whether host is an IP address of this machine.
func isLocalAddr(host string) bool {
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Unmap() == ip.Unmap() {
			return true
		}
	}
	return false
}
