package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
)

// A portRange is the loopback TCP ports this program may listen on, and
// have its children listen on: LO-HI, both included.
type portRange struct{ lo, hi int }

// parsePortRange parses "LO-HI" (1 ≤ LO ≤ HI ≤ 65535).
func parsePortRange(s string) (portRange, error) {
	lo, hi, ok := strings.Cut(s, "-")
	a, errA := strconv.Atoi(lo)
	b, errB := strconv.Atoi(hi)
	if !ok || errA != nil || errB != nil || a < 1 || a > b || b > 65535 {
		return portRange{}, fmt.Errorf("port range %q: want LO-HI, such as 58450-58499", s)
	}
	return portRange{a, b}, nil
}

// errNoFreePort is listen's error when every port of the range is taken.
var errNoFreePort = errors.New("no free port in the range")

// listen listens on the first free port of the range on 127.0.0.1,
// starting at a random one (so that the runner's parallel servers rarely
// try the same port first) and wrapping around.
func (p portRange) listen() (net.Listener, error) {
	n := p.hi - p.lo + 1
	start := rand.IntN(n)
	for i := range n {
		port := p.lo + (start+i)%n
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err == nil {
			return l, nil
		}
	}
	return nil, fmt.Errorf("%w %d-%d", errNoFreePort, p.lo, p.hi)
}

// free returns a port of the range that is free now, for a child process
// to listen on (another process may take it first: the caller retries).
func (p portRange) free() (int, error) {
	l, err := p.listen()
	if err != nil {
		return 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}
