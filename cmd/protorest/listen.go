package main

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
)

// listen listens on the TCP address addr that the flag --name gave. Its
// error names the flag, and says how to pick another port when another
// process holds this one, or when it needs privileges.
func listen(name, addr string) (net.Listener, error) {
	lis, err := net.Listen("tcp", addr)
	switch {
	case err == nil:
		return lis, nil
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("--%s %s: %w (another process holds it; pick another port with --%s %s)", name, addr, err, name, suggestAddr(addr))
	case errors.Is(err, syscall.EACCES):
		return nil, fmt.Errorf("--%s %s: %w (a port below 1024 needs privileges; pick another with --%s %s)", name, addr, err, name, suggestAddr(addr))
	}
	return nil, fmt.Errorf("--%s %s: %w", name, addr, err)
}

// suggestAddr is addr with a port free now: 10000 more than addr's if that
// one is, else one the system picks.
func suggestAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if p, err := strconv.Atoi(port); err == nil && p+10000 <= 65535 {
		alt := net.JoinHostPort(host, strconv.Itoa(p+10000))
		if lis, err := net.Listen("tcp", alt); err == nil {
			lis.Close()
			return alt
		}
	}
	lis, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return net.JoinHostPort(host, "PORT")
	}
	defer lis.Close()
	_, port, _ = net.SplitHostPort(lis.Addr().String())
	return net.JoinHostPort(host, port)
}
