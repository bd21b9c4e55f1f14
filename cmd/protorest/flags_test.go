package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestServeFlagsAndEnvironment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(c *serveConfig) any // what to compare with want
		want  any
	}{
		{"defaults", nil, nil, func(c *serveConfig) any {
			return []any{c.listen, c.maxBody, c.maxDepth, c.accessLog, c.grpcProxy, c.logFormat}
		},
			[]any{":8080", int64(4 << 20), 100, true, true, "text"}},
		{"env sets a flag", nil, map[string]string{"PROTOREST_LISTEN": ":9999"}, func(c *serveConfig) any { return c.listen }, ":9999"},
		{"the command line wins", []string{"--listen", ":7777"}, map[string]string{"PROTOREST_LISTEN": ":9999"}, func(c *serveConfig) any { return c.listen }, ":7777"},
		{"dashes are underscores", nil, map[string]string{"PROTOREST_UPSTREAM_CA": "ca.pem"}, func(c *serveConfig) any { return []any{c.upstreamCA, c.upstreamTLSOn()} }, []any{"ca.pem", true}},
		{"env bool", nil, map[string]string{"PROTOREST_ACCESS_LOG": "false", "PROTOREST_AUTO_MAP": "1"}, func(c *serveConfig) any { return []bool{c.accessLog, c.autoMap} }, []bool{false, true}},
		{"encoded-slash fallback on by default", nil, nil, func(c *serveConfig) any { return c.slashFallback }, true},
		{"encoded-slash fallback off", nil, map[string]string{"PROTOREST_ENCODED_SLASH_FALLBACK": "false"}, func(c *serveConfig) any { return c.slashFallback }, false},
		{"env list is comma-separated", nil, map[string]string{"PROTOREST_UPSTREAM_HEADER": "x-a:1, x-b:2,"}, func(c *serveConfig) any { return c.upstreamHeaders }, []string{"x-a:1", "x-b:2"}},
		{"a repeated flag replaces its env list", []string{"--ignore-query", "a", "--ignore-query", "b"}, map[string]string{"PROTOREST_IGNORE_QUERY": "c"}, func(c *serveConfig) any { return c.ignoredQuery }, []string{"a", "b"}},
		{"sizes", []string{"--max-body-size", "512KiB"}, map[string]string{"PROTOREST_MAX_UPSTREAM_MESSAGE_SIZE": "1GB"}, func(c *serveConfig) any { return []int64{c.maxBody, c.maxUpstreamMessage} }, []int64{512 << 10, 1e9}},
		{"durations and ints", []string{"--drain-timeout", "1m"}, map[string]string{"PROTOREST_MAX_JSON_DEPTH": "7"}, func(c *serveConfig) any { return []any{c.drainTimeout, c.maxDepth} }, []any{time.Minute, 7}},
		{"upstream message size is the response limit", nil, nil, func(c *serveConfig) any { return c.maxUpstreamMessageSize() }, 4 << 20},
		{"upstream message size is not the body limit", []string{"--max-body-size", "100MiB"}, nil, func(c *serveConfig) any { return c.maxUpstreamMessageSize() }, 4 << 20},
		{"upstream message size without a response limit", []string{"--max-response-bytes", "0"}, nil, func(c *serveConfig) any { return c.maxUpstreamMessageSize() }, math.MaxInt32},
		{"upstream message size as given", []string{"--max-upstream-message-size", "8MiB"}, nil, func(c *serveConfig) any { return c.maxUpstreamMessageSize() }, 8 << 20},
		{"limits' defaults", nil, nil, func(c *serveConfig) any {
			return []any{c.readHeaderTimeout, c.idleTimeout, c.maxHeaderBytes, c.maxConnections, c.maxStreams, c.readIdleTimeout, c.streamIdleTimeout}
		}, []any{10 * time.Second, 120 * time.Second, int64(64 << 10), defaultMaxConnections(), 100, 30 * time.Second, 5 * time.Minute}},
		{"limits from flags and env", []string{"--idle-timeout", "5s", "--max-connections", "0", "--read-idle-timeout", "1s"}, map[string]string{
			"PROTOREST_READ_HEADER_TIMEOUT": "2s", "PROTOREST_MAX_HEADER_BYTES": "16KiB", "PROTOREST_MAX_CONNECTIONS": "9", "PROTOREST_MAX_CONCURRENT_STREAMS": "10",
			"PROTOREST_STREAM_IDLE_TIMEOUT": "1m",
		}, func(c *serveConfig) any {
			return []any{c.readHeaderTimeout, c.idleTimeout, c.maxHeaderBytes, c.maxConnections, c.maxStreams, c.readIdleTimeout, c.streamIdleTimeout}
		}, []any{2 * time.Second, 5 * time.Second, int64(16 << 10), 0, 10, time.Second, time.Minute}},
		{"upstream message size follows the response limit", []string{"--max-response-bytes", "100MiB"}, nil, func(c *serveConfig) any { return c.maxUpstreamMessageSize() }, 100 << 20},
		{"response limits' defaults", nil, nil, func(c *serveConfig) any {
			return []any{c.maxResponseBytes, c.maxBufferedResp, c.bufferedRespWait, c.respWriteTimeout}
		}, []any{int64(4 << 20), int64(-1), time.Second, time.Minute}},
		{"response limits from flags and env", []string{"--max-response-bytes", "1MiB", "--response-write-timeout", "0"}, map[string]string{
			"PROTOREST_MAX_BUFFERED_RESPONSE_BYTES": "64MiB", "PROTOREST_BUFFERED_RESPONSE_WAIT": "250ms",
		}, func(c *serveConfig) any {
			return []any{c.maxResponseBytes, c.maxBufferedResp, c.bufferedRespWait, c.respWriteTimeout}
		}, []any{int64(1 << 20), int64(64 << 20), 250 * time.Millisecond, time.Duration(0)}},
		{"probe paths", []string{"--readyz-path", "/ready", "--livez-path", ""}, nil, func(c *serveConfig) any { return []string{c.livezPath, c.readyzPath} }, []string{"", "/ready"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := parseServeFlags(append([]string{"--upstream", "up:1"}, tt.args...), envOf(tt.env), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.check(c); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestServeFlagErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{}, nil, "--upstream is required"},
		{[]string{"--upstream", "u:1", "--bogus"}, nil, "flag provided but not defined: -bogus"},
		{[]string{"--upstream", "u:1", "extra"}, nil, `unexpected argument "extra"`},
		{nil, map[string]string{"PROTOREST_UPSTREAM": "u:1", "PROTOREST_MAX_BODY_SIZE": "lots"}, `PROTOREST_MAX_BODY_SIZE="lots": want a size`},
		{nil, map[string]string{"PROTOREST_UPSTREAM": "u:1", "PROTOREST_LOG_LEVEL": "loud"}, `PROTOREST_LOG_LEVEL="loud": want debug, info, warn or error`},
		{nil, map[string]string{"PROTOREST_UPSTREAM": "u:1", "PROTOREST_ACCESS_LOG": "maybe"}, `PROTOREST_ACCESS_LOG="maybe"`},
		{[]string{"--upstream", "u:1", "--log-format", "xml"}, nil, `invalid value "xml" for flag -log-format: want text or json`},
		{[]string{"--upstream", "u:1", "--success-status", "a.B/C=404"}, nil, "success status"},
		{[]string{"--upstream", "u:1", "--success-status", "a.B/C"}, nil, "want pkg.Service/Method=CODE"},
		{[]string{"--upstream", "u:1", "--upstream-header", "novalue"}, nil, "want KEY:VALUE"},
		{[]string{"--upstream", "u:1", "--upstream-header", "grpc-timeout:1S"}, nil, "reserved"},
		{[]string{"--upstream", "u:1", "--upstream-header", "Bad Key:1"}, nil, "not allowed in a metadata key"},
		{[]string{"--upstream", "u:1", "--incoming-header", "grpc-*"}, nil, "reserved"},
		{[]string{"--upstream", "u:1", "--tls-cert", "c.pem"}, nil, "--tls-cert and --tls-key go together"},
		{[]string{"--upstream", "u:1", "--tls-client-ca", "ca.pem"}, nil, "--tls-client-ca needs --tls-cert"},
		{[]string{"--upstream", "u:1", "--upstream-key", "k.pem"}, nil, "--upstream-cert and --upstream-key go together"},
		{[]string{"--upstream", "u:1", "--readyz-path", "ready"}, nil, "must start with /"},
		{[]string{"--upstream", "u:1", "--readyz-path", "/healthz"}, nil, `--health-path and --readyz-path are both "/healthz"`},
		{[]string{"--upstream", "u:1", "--max-json-depth", "0"}, nil, "must be positive"},
		{[]string{"--upstream", "u:1", "--idle-timeout", "-1s"}, nil, "--idle-timeout, --read-idle-timeout and --stream-idle-timeout must not be negative"},
		{[]string{"--upstream", "u:1", "--stream-idle-timeout", "-1s"}, nil, "--idle-timeout, --read-idle-timeout and --stream-idle-timeout must not be negative"},
		{[]string{"--upstream", "u:1", "--read-header-timeout", "0s"}, nil, "--read-header-timeout must be positive"},
		{[]string{"--upstream", "u:1", "--max-header-bytes", "0"}, nil, "--max-header-bytes must be positive"},
		{[]string{"--upstream", "u:1", "--max-connections", "-1"}, nil, "--max-connections must not be negative"},
		{[]string{"--upstream", "u:1", "--response-write-timeout", "-1s"}, nil, "--buffered-response-wait and --response-write-timeout must not be negative"},
		{[]string{"--upstream", "u:1", "--max-response-bytes", "3GiB"}, nil, "--max-response-bytes must not be negative, and under 2GiB"},
		{[]string{"--upstream", "u:1", "--max-concurrent-streams", "0"}, nil, "--max-concurrent-streams must be positive"},
		{nil, map[string]string{"PROTOREST_UPSTREAM": "u:1", "PROTOREST_MAX_CONNECTIONS": "many"}, `PROTOREST_MAX_CONNECTIONS="many": want an integer`},
		{[]string{"--upstream", "localhost:9000", "--listen", ":9000"}, nil, "serve would call itself"},
		{[]string{"--upstream", "u:1", "--cors-origin", "app.example/x"}, nil, `--cors-origin: CORS origin "app.example/x"`},
		{[]string{"--upstream", "u:1", "--cors-origin", "*", "--cors-credentials"}, nil, "with credentials"},
		{[]string{"--upstream", "u:1", "--cors-credentials"}, nil, "--cors-credentials needs --cors-origin"},
		{[]string{"--upstream", "u:1", "--trusted-proxy", "10.0.0.0/40"}, nil, "--trusted-proxy"},
		{[]string{"--upstream", "u:1", "--upstream-compression", "br"}, nil, "want none or gzip"},
		{[]string{"--upstream", "http://localhost:50051"}, nil, `invalid value "http://localhost:50051" for flag -upstream: a URL, not a gRPC target: give --upstream localhost:50051`},
		{nil, map[string]string{"PROTOREST_UPSTREAM": "https://app.example.com"}, `PROTOREST_UPSTREAM="https://app.example.com": a URL, not a gRPC target: give --upstream app.example.com:443 --upstream-tls`},
		{[]string{"--upstream", "localhost:50051:1"}, nil, `"localhost:50051:1" is not host:port`},
		{[]string{"--upstream", "dns://8.8.8.8/localhost:9000", "--listen", ":9000"}, nil, "serve would call itself"},
		{[]string{"--upstream", "passthrough:///127.0.0.1:9000", "--listen", "127.0.0.1:9000"}, nil, "serve would call itself"},
	}
	for _, tt := range tests {
		_, err := parseServeFlags(tt.args, envOf(tt.env), io.Discard)
		var usage usageError
		if err == nil || !errors.As(err, &usage) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q %v: %v; want a usage error containing %q", tt.args, tt.env, err, tt.want)
		}
	}
}

func TestCheckNotSelf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		listen, upstream string
		self             bool
	}{
		{":8080", "localhost:8080", true},
		{":8080", "127.0.0.1:8080", true},
		{":8080", "[::1]:8080", true},
		{":8080", ":8080", true},
		{"0.0.0.0:8080", "dns:///localhost:8080", true},
		{"127.0.0.1:8080", "localhost:8080", true},
		{"localhost:http", "127.0.0.1:80", true},
		{":8080", "localhost:8081", false},
		{":8080", "app:8080", false}, // another host: no DNS lookup
		{"127.0.0.1:8080", "10.1.2.3:8080", false},
		{":8080", "unix:///run/app.sock", false},
		{":8080", "dns://8.8.8.8/localhost:8080", true},
		{":8080", "dns:localhost:8080", true},
		{":8080", "passthrough:///[::1]:8080", true},
		{":8080", "unix:localhost:8080", false},
		{":8080", "unix-abstract:localhost:8080", false},
	}
	for _, tt := range tests {
		if err := checkNotSelf(tt.listen, tt.upstream); (err != nil) != tt.self {
			t.Errorf("checkNotSelf(%q, %q) = %v, want self %v", tt.listen, tt.upstream, err, tt.self)
		}
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"0": 0, "1024": 1024, "4MiB": 4 << 20, "512KiB": 512 << 10, "2GiB": 2 << 30, "3MB": 3e6, "10kB": 1e4, "7B": 7} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "4 MiBs", "MiB", "1.5MiB"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q): no error", in)
		}
	}
	for n, want := range map[int64]string{4 << 20: "4MiB", 1000: "1000", 2048: "2KiB", 0: "0"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestServeHelpListsEveryFlag checks that --help shows each flag of the
// table with its default and its environment variable, grouped, within 80
// columns, and that the table is all the flags there are.
func TestServeHelpListsEveryFlag(t *testing.T) {
	t.Parallel()
	var stdout syncBuffer
	if code := run(context.Background(), []string{"serve", "--help"}, &stdout, io.Discard); code != 0 {
		t.Fatalf("serve --help: exit %d", code)
	}
	help := stdout.String()
	specs := serveFlags(newServeConfig())
	for i, f := range specs {
		// The flag's entry runs from its name to the next flag's.
		start := strings.Index(help, "\n  --"+f.name+" ")
		if start < 0 {
			start = strings.Index(help, "\n  --"+f.name+"\n")
		}
		if start < 0 {
			t.Errorf("--help does not list --%s", f.name)
			continue
		}
		entry := help[start:]
		if i+1 < len(specs) {
			entry = entry[:strings.Index(entry, "\n  --"+specs[i+1].name)]
		}
		flat := strings.Join(strings.Fields(entry), " ")
		if !strings.Contains(flat, "default "+f.defaultText()) || !strings.Contains(flat, "$"+envName(f.name)) {
			t.Errorf("--%s: no default %q or $%s in %q", f.name, f.defaultText(), envName(f.name), flat)
		}
		if !strings.Contains(help, "\n"+f.group+":\n") {
			t.Errorf("no group %q", f.group)
		}
	}
	for _, line := range strings.Split(help, "\n") {
		if len(line) > 80 {
			t.Errorf("help line longer than 80 columns: %q", line)
		}
	}
	// Every flag the parser knows is in the table, hence in --help.
	fset := flag.NewFlagSet("serve", flag.ContinueOnError)
	parseCommandLine(fset, serveFlags(newServeConfig()), []string{"--help"}, "", envOf(nil), io.Discard)
	n := 0
	fset.VisitAll(func(*flag.Flag) { n++ })
	if n != len(specs) {
		t.Errorf("%d flags defined, %d in the table", n, len(specs))
	}
	if envName("upstream-ca") != "PROTOREST_UPSTREAM_CA" || envName("listen") != "PROTOREST_LISTEN" {
		t.Errorf("envName: %s %s", envName("upstream-ca"), envName("listen"))
	}
}

// TestServeExitCodes runs the command as main does, environment included:
// bad usage exits 2, a failure at run time 1.
func TestServeExitCodes(t *testing.T) { // not parallel: t.Setenv
	tests := []struct {
		args []string
		env  map[string]string
		code int
	}{
		{[]string{"serve", "--bogus"}, nil, 2},
		{[]string{"serve", "--upstream"}, nil, 2},
		{[]string{"serve"}, nil, 2},
		{[]string{"serve", "--upstream", "u:1", "--max-body-size", "x"}, nil, 2},
		{[]string{"serve"}, map[string]string{"PROTOREST_UPSTREAM": "u:1", "PROTOREST_MAX_JSON_DEPTH": "deep"}, 2},
		{[]string{"serve", "--upstream", "localhost:7"}, map[string]string{"PROTOREST_LISTEN": "127.0.0.1:7"}, 2},
		{[]string{"serve", "--upstream", "http://localhost:1"}, nil, 2},
		{[]string{"serve"}, map[string]string{"PROTOREST_UPSTREAM": "https://localhost"}, 2},
		{[]string{"serve", "--upstream", "u:1", "--listen", "256.0.0.1:bad", "--load-timeout", "1ms"}, nil, 1},
	}
	for _, tt := range tests {
		for k, v := range tt.env {
			t.Setenv(k, v)
		}
		var stderr syncBuffer
		if code := run(context.Background(), tt.args, io.Discard, &stderr); code != tt.code {
			t.Errorf("%q %v: exit %d, want %d: %s", tt.args, tt.env, code, tt.code, stderr.String())
		}
		for k := range tt.env {
			os.Unsetenv(k) // t.Setenv restores it when the test ends
		}
	}
}
