package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/protorest/protorest/bench"
)

// runConfig is run's command line.
type runConfig struct {
	bin, out, dir        string
	count                int
	duration, warmup     time.Duration
	conns, threads, port int
	routes               []bench.Route
	names                []contender
	protocols            []protocol
	serveFlags           []string
	commit               string
}

func parseRunFlags(args []string) (*runConfig, error) {
	c := &runConfig{}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.StringVar(&c.bin, "bin", "", "the directory of the programs: librarybackend, floorproxy, gatewayproxy, vanguardproxy, inprocess, protorest")
	fs.StringVar(&c.out, "out", "", "the results file to write (JSON lines)")
	fs.StringVar(&c.dir, "dir", "", "where the processes' logs, the certificate and load scripts go (default: beside -out)")
	fs.IntVar(&c.count, "count", 3, "rounds")
	fs.DurationVar(&c.duration, "duration", 5*time.Second, "load per contender, route and protocol in each round (whole seconds)")
	fs.DurationVar(&c.warmup, "warmup", time.Second, "load of each contender and protocol before the first round, not measured (0: none)")
	fs.IntVar(&c.conns, "conns", 64, "connections, each with one request at a time")
	fs.IntVar(&c.threads, "threads", 2, "threads of wrk and h2load")
	fs.IntVar(&c.port, "port", 19400, "the first of the loopback ports used: the backend's, then two for each contender (plaintext, TLS)")
	routes := fs.String("routes", "get,query,post,list,stream", "the routes, comma-separated")
	names := fs.String("contenders", strings.Join(defaultContenders, ","), "the contenders, comma-separated")
	protos := fs.String("protocols", "h1,h2c,h2", "the protocols, comma-separated: h1 (wrk), h2c and h2 (TLS) (h2load)")
	serveFlags := fs.String("serve-flags", "", "more flags for protorest serve, space-separated (e.g. --access-log=false)")
	fs.StringVar(&c.commit, "commit", "", "the repository's commit, for the report")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if c.bin == "" || c.out == "" {
		return nil, errors.New("run: -bin and -out are required")
	}
	if c.dir == "" {
		c.dir = filepath.Dir(c.out)
	}
	if c.count < 1 || c.conns < 1 || c.threads < 1 {
		return nil, errors.New("run: -count, -conns and -threads must be at least 1")
	}
	for _, n := range split(*routes) {
		r, err := routeNamed(n)
		if err != nil {
			return nil, err
		}
		c.routes = append(c.routes, r)
	}
	for _, n := range split(*names) {
		ct, err := contenderNamed(n)
		if err != nil {
			return nil, err
		}
		c.names = append(c.names, ct)
	}
	for _, n := range split(*protos) {
		p, err := protocolNamed(n)
		if err != nil {
			return nil, err
		}
		c.protocols = append(c.protocols, p)
	}
	if len(c.routes) == 0 || len(c.names) == 0 || len(c.protocols) == 0 {
		return nil, errors.New("run: no route, contender or protocol")
	}
	c.serveFlags = strings.Fields(*serveFlags)
	return c, nil
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// A server is a contender's process for one kind of listener.
type server struct {
	contender
	proc *process
	url  string // scheme://host:port
}

func runCommand(args []string) error {
	c, err := parseRunFlags(args)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	out, err := os.Create(c.out)
	if err != nil {
		return err
	}
	defer out.Close()
	enc := json.NewEncoder(out)
	run := describeRun(c, args)
	if err := enc.Encode(line{Run: run}); err != nil {
		return err
	}
	began := time.Now()

	cert, key, err := writeCertificate(c.dir)
	if err != nil {
		return err
	}
	var procs []*process
	var procsMu sync.Mutex
	stopAll := func() {
		procsMu.Lock()
		defer procsMu.Unlock()
		for _, p := range procs {
			p.stop()
		}
		procs = nil
	}
	defer stopAll()
	// Interrupted, stop the contenders too: they would keep their ports.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	go func() {
		if _, ok := <-signals; ok {
			stopAll()
			os.Exit(130)
		}
	}()
	started := func(p *process) {
		procsMu.Lock()
		defer procsMu.Unlock()
		procs = append(procs, p)
	}
	port := c.port
	backendAddr := fmt.Sprintf("127.0.0.1:%d", port)
	backend, err := start("librarybackend", []string{filepath.Join(c.bin, "librarybackend"), "-listen", backendAddr}, filepath.Join(c.dir, "librarybackend.log"))
	if err != nil {
		return err
	}
	started(backend)
	// servers[tls][i] is contender i's process with TLS or without.
	servers := [2][]*server{}
	for _, ct := range c.names {
		for t, tls := range []bool{false, true} {
			port++
			if !c.needs(tls) {
				continue
			}
			addr := fmt.Sprintf("127.0.0.1:%d", port)
			upstream, certFile, keyFile, scheme, suffix := "", "", "", "http", ""
			if ct.remote {
				upstream = backendAddr
			}
			if tls {
				certFile, keyFile, scheme, suffix = cert, key, "https", "-tls"
			}
			p, err := start(ct.name+suffix, ct.args(c.bin, addr, upstream, certFile, keyFile, c.serveFlags), filepath.Join(c.dir, ct.name+suffix+".log"))
			if err != nil {
				return err
			}
			started(p)
			servers[t] = append(servers[t], &server{contender: ct, proc: p, url: scheme + "://" + addr})
		}
	}
	for _, ss := range servers {
		for _, s := range ss {
			if err := s.proc.waitReady(s.url + bench.Routes[0].Op.HTTP.Target); err != nil {
				return err
			}
		}
	}
	for _, ss := range servers {
		if err := checkAnswers(ss, bench.Routes); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "throughput: %d contenders answer every route alike; %d rounds of %s each\n", len(c.names), c.count, c.duration)

	l := load{conns: c.conns, threads: c.threads, duration: c.duration, dir: c.dir}
	if c.warmup > 0 {
		w := l
		w.duration = c.warmup
		for _, p := range c.protocols {
			for _, s := range c.serversFor(servers, p) {
				if _, err := w.run(p, s.url, c.routes[0]); err != nil {
					return fmt.Errorf("warm-up of %s over %s: %w", s.name, p.name, err)
				}
			}
		}
	}
	failed := 0
	for round := 1; round <= c.count; round++ {
		for _, p := range c.protocols {
			for _, route := range c.routes {
				for _, s := range c.serversFor(servers, p) {
					if _, skip := bench.SkippedRoutes[s.name][route.Name]; skip {
						continue
					}
					r, err := measure(l, p, route, s)
					if err != nil {
						return fmt.Errorf("round %d, %s over %s on %s: %w", round, s.name, p.name, route.Name, err)
					}
					r.Round = round
					if err := enc.Encode(line{Result: &r}); err != nil {
						return err
					}
					if r.Errors > 0 || r.Requests == 0 {
						failed++
					}
					fmt.Fprintf(os.Stderr, "round %d %-3s %-6s %-20s %8.0f req/s  p99 %7.0f µs  %6.1f µs CPU/req  %6d KiB  %d errors  load %.2f\n",
						round, p.name, route.Name, s.name, r.RPS, r.P99, r.CPU, r.PeakRSS, r.Errors, r.Load)
				}
			}
		}
	}
	run.Elapsed = time.Since(began).Round(time.Second).String()
	if err := enc.Encode(line{Run: run}); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d rounds had errors or no request answered: see %s", failed, c.out)
	}
	return nil
}

// needs reports whether a protocol of the run is over TLS (tls) or not.
func (c *runConfig) needs(tls bool) bool {
	for _, p := range c.protocols {
		if p.tls == tls {
			return true
		}
	}
	return false
}

// serversFor are the processes that serve protocol p.
func (c *runConfig) serversFor(servers [2][]*server, p protocol) []*server {
	if p.tls {
		return servers[1]
	}
	return servers[0]
}

// run loads url with route's request over protocol p.
func (l load) run(p protocol, url string, route bench.Route) (loadResult, error) {
	if p.name == "h1" {
		return l.wrk(url, route)
	}
	return l.h2load(url, route)
}

// measure is one round of one contender on one route and protocol: the
// load, and the process's CPU time and peak RSS over it.
func measure(l load, p protocol, route bench.Route, s *server) (Result, error) {
	pid := s.proc.pid()
	r := Result{Protocol: p.name, Route: route.Name, Contender: s.name, Load: loadAverage()}
	if err := resetPeakRSS(pid); err != nil {
		return r, err
	}
	before, err := cpuTime(pid)
	if err != nil {
		return r, err
	}
	res, err := l.run(p, s.url, route)
	if err != nil {
		return r, err
	}
	after, err := cpuTime(pid)
	if err != nil {
		return r, err
	}
	if r.PeakRSS, err = peakRSS(pid); err != nil {
		return r, err
	}
	r.Requests, r.Errors, r.Seconds = res.requests, res.errors, res.seconds
	r.P50, r.P99, r.P999 = res.p50, res.p99, res.p999
	if res.seconds > 0 {
		r.RPS = float64(res.requests) / res.seconds
	}
	if res.requests > 0 {
		r.CPU = float64((after - before).Microseconds()) / float64(res.requests)
	}
	return r, nil
}

// describeRun is the Run of c: the machine, the tools, the command.
func describeRun(c *runConfig, args []string) *Run {
	return &Run{
		Date:       time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		Commit:     c.commit,
		Machine:    machine(),
		GoVersion:  runtime.Version(),
		Tools:      []string{firstLine("wrk", "-v"), firstLine("h2load", "--version")},
		Command:    "throughput run " + strings.Join(args, " "),
		Count:      c.count,
		Duration:   strconv.Itoa(seconds(c.duration)) + "s",
		Conns:      c.conns,
		Threads:    c.threads,
		ServeFlags: c.serveFlags,
	}
}

// machine is the architecture, the number of CPUs, the CPU's model and
// the kernel.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return fmt.Sprintf("%s, %d CPUs, %s, Linux %s", runtime.GOARCH, runtime.NumCPU(), model, strings.TrimSpace(string(kernel)))
}

// firstLine is the first line a command prints.
func firstLine(name string, args ...string) string {
	out, _ := exec.Command(name, args...).CombinedOutput()
	l, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(l)
}
