package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// A serveProc is a protorest serve process started by the limits table.
type serveProc struct {
	cmd  *exec.Cmd
	addr string // host:port it listens on
	args []string

	upstream *backend // the limits table's, for the probes that count held calls
}

// servingLine is what serve prints on stdout once it listens.
var servingLine = regexp.MustCompile(`^protorest: serving .* as HTTP/JSON on (\S+) \(http\)$`)

// serveListen is the address the serves started here listen on.
var serveListen = "127.0.0.1:0"

// startServe runs bin serve with args and --listen serveListen, and
// returns once it listens and is ready (GET /readyz is 200). bin may be a
// command line that ends with the binary ("taskset -c 1 protorest"): its
// process ID is then serve's once the command execs it.
func startServe(ctx context.Context, bin string, args ...string) (*serveProc, error) {
	p := &serveProc{args: args}
	command := strings.Fields(bin)
	p.cmd = exec.Command(command[0], append(append(command[1:], "serve", "--listen", serveListen, "--access-log=false"), args...)...)
	p.cmd.Stderr = os.Stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case p.addr = <-addr:
	case <-time.After(30 * time.Second):
		p.Stop()
		return nil, fmt.Errorf("serve %s did not listen within 30s", strings.Join(args, " "))
	case <-ctx.Done():
		p.Stop()
		return nil, ctx.Err()
	}
	for range 200 {
		if get(ctx, http.DefaultClient, p.url("/readyz")) == http.StatusOK {
			return p, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.Stop()
	return nil, fmt.Errorf("serve %s on %s: /readyz not 200 within 10s", strings.Join(args, " "), p.addr)
}

func (p *serveProc) url(path string) string { return "http://" + p.addr + path }

// Stop ends serve with SIGTERM and waits for it.
func (p *serveProc) Stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()
}
