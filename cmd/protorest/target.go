package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"google.golang.org/grpc/resolver"
)

// targetValue is a gRPC target, as grpc.NewClient takes it: host:port,
// [v6]:port, dns:///name:port, dns://server/name:port, unix:path,
// unix:///path, unix-abstract:name, passthrough:///addr, or any scheme a
// resolver is registered for. Set refuses what grpc.NewClient would take
// but never reach (see checkTarget).
type targetValue struct{ p *string }

func (v targetValue) String() string { return *v.p }
func (v targetValue) Set(s string) error {
	if err := checkTarget(s); err != nil {
		return err
	}
	*v.p = s
	return nil
}

// checkTarget refuses a URL (http://, https://, or another scheme:// that
// grpc-go has no resolver for, which it would give whole to its DNS
// resolver, to fail there at every attempt), saying what to give
// instead, and a name its DNS resolver cannot parse.
func checkTarget(target string) error {
	u, err := url.Parse(target)
	if err == nil && u.Scheme != "" && resolver.Get(u.Scheme) == nil && (u.Scheme == "http" || u.Scheme == "https" || strings.Contains(target, "://")) {
		return urlTargetError(u)
	}
	scheme, endpoint, err := splitTarget(target)
	switch {
	case err != nil:
		return err
	case scheme != "dns":
		return nil // its resolver judges it
	}
	if err := checkHostPort(endpoint); err != nil {
		return fmt.Errorf("%v: want host:port, dns:///name:port or unix:///path", err)
	}
	return nil
}

// urlTargetError says what to give for u, a URL: its host and port
// (80 or 443 by default), with --upstream-tls for https.
func urlTargetError(u *url.URL) error {
	if u.Host == "" {
		return fmt.Errorf("grpc-go has no resolver for %s://: want host:port, dns:///name:port or unix:///path", u.Scheme)
	}
	port, tls := u.Port(), u.Scheme == "https" || u.Scheme == "grpcs"
	if port == "" {
		port = "80"
		if tls {
			port = "443"
		}
	}
	fix := "--upstream " + net.JoinHostPort(u.Hostname(), port)
	if tls {
		fix += " --upstream-tls"
	}
	what := "a URL"
	if u.Path != "" && u.Path != "/" {
		what += " (a gRPC target has no path)"
	}
	return fmt.Errorf("%s, not a gRPC target: give %s", what, fix)
}

// splitTarget returns the scheme of target whose resolver grpc.NewClient
// uses, and the endpoint it gives that resolver, as grpc-go parses them
// (clientconn.go: parseTargetAndFindResolver; Target.Endpoint): a URL
// whose scheme has a resolver, else the target after "dns:///", the
// default. The error is grpc.NewClient's: a target that is no URL even so.
func splitTarget(target string) (scheme, endpoint string, err error) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme == "" || resolver.Get(u.Scheme) == nil {
		if u, err = url.Parse("dns:///" + target); err != nil {
			return "", "", fmt.Errorf("%q is not a gRPC target: %v", target, errors.Unwrap(err))
		}
	}
	endpoint = u.Path
	if endpoint == "" {
		endpoint = u.Opaque
	}
	return u.Scheme, strings.TrimPrefix(endpoint, "/"), nil
}

// checkHostPort reports a DNS endpoint that grpc-go's DNS resolver cannot
// parse (internal/resolver/dns: parseTarget): it takes an IP address,
// host:port, [v6]:port or a host alone (port 443).
func checkHostPort(endpoint string) error {
	if endpoint == "" {
		return errors.New("no host")
	}
	if net.ParseIP(endpoint) != nil {
		return nil
	}
	if _, port, err := net.SplitHostPort(endpoint); err == nil {
		if port == "" {
			return errors.New("no port after the colon")
		}
		return nil
	}
	if _, _, err := net.SplitHostPort(endpoint + ":443"); err != nil {
		return fmt.Errorf("%q is not host:port", endpoint)
	}
	return nil
}
