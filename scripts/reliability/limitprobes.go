package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// limitProbes are the breaches, by flag. A flag of the Limits group that
// has none gets a row that says so.
var limitProbes = map[string]limitProbe{
	"max-body-size": {run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		limit, err := sizeOf(f)
		if err != nil {
			return "", "", err
		}
		body := `{"pad":"` + strings.Repeat("x", int(limit)+1-len(`{"pad":""}`)) + `"}`
		answer, err := do(newRequest(ctx, http.MethodPost, s.url("/v1/echo"), strings.NewReader(body)), false)
		return fmt.Sprintf("POST of a %d-byte JSON body", len(body)), answer, err
	}},
	"max-json-depth": {run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		n, err := intOf(f)
		if err != nil {
			return "", "", err
		}
		body := `{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
		answer, err := do(newRequest(ctx, http.MethodPost, s.url("/v1/echo"), strings.NewReader(body)), false)
		return fmt.Sprintf("POST of a JSON object nested %d deep", n+1), answer, err
	}},
	"max-url-bytes": {run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		limit, err := sizeOf(f)
		if err != nil {
			return "", "", err
		}
		// The limit counts the whole target: path, "?" and query.
		target := "/v1/ping?pad="
		target += strings.Repeat("x", int(limit)+1-len(target))
		answer, err := do(newRequest(ctx, http.MethodGet, s.url(target), nil), false)
		return fmt.Sprintf("GET of a %d-byte target (path, ? and query)", len(target)), answer, err
	}},
	"max-headers": {run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		n, err := intOf(f)
		if err != nil {
			return "", "", err
		}
		req := newRequest(ctx, http.MethodGet, s.url("/v1/ping"), nil)
		for i := range n + 1 {
			req.Header.Set("X-Pad-"+strconv.Itoa(i), "1")
		}
		answer, err := do(req, false)
		return fmt.Sprintf("GET with %d X-Pad-N header lines (and Go's own)", n+1), answer, err
	}},
	"max-query-params": {run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		n, err := intOf(f)
		if err != nil {
			return "", "", err
		}
		q := make([]string, n+1)
		for i := range q {
			q[i] = "p" + strconv.Itoa(i) + "=1"
		}
		answer, err := do(newRequest(ctx, http.MethodGet, s.url("/v1/ping?"+strings.Join(q, "&")), nil), false)
		return fmt.Sprintf("GET with %d query parameters", n+1), answer, err
	}},
	"max-metadata-bytes": {run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		limit, err := sizeOf(f)
		if err != nil {
			return "", "", err
		}
		req := newRequest(ctx, http.MethodGet, s.url("/v1/ping"), nil)
		req.Header.Set("Grpc-Metadata-X-Pad", strings.Repeat("x", int(limit)))
		answer, err := do(req, false)
		return fmt.Sprintf("GET with a %d-byte Grpc-Metadata-X-Pad", limit), answer, err
	}},
	"max-header-bytes": {run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		limit, err := sizeOf(f)
		if err != nil {
			return "", "", err
		}
		pad := int(limit) + 8<<10
		answer, err := rawAnswer(s.addr, fmt.Sprintf("GET /v1/ping HTTP/1.1\r\nHost: %s\r\nX-Pad: %s\r\n\r\n", s.addr, strings.Repeat("x", pad)), 10*time.Second)
		return fmt.Sprintf("GET with a %d-byte X-Pad header", pad), answer, err
	}},
	"max-timeout": {run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		limit, err := time.ParseDuration(f.def)
		if err != nil {
			return "", "", fmt.Errorf("--%s: default %q is not a duration", f.name, f.def)
		}
		asked := 2 * limit
		req := newRequest(ctx, http.MethodGet, s.url("/v1/deadline"), nil)
		req.Header.Set("Grpc-Timeout", strconv.Itoa(int(asked.Seconds()))+"S")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", "", err
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		answer := res.Status
		if left, err := strconv.Unquote(strings.TrimSpace(string(body))); res.StatusCode == http.StatusOK && err == nil {
			answer += "; the upstream's deadline was " + left + " away"
		} else {
			answer += "; " + cut(string(body), 100)
		}
		return fmt.Sprintf("GET with Grpc-Timeout: %dS (%s)", int(asked.Seconds()), asked), answer, nil
	}},
	"default-timeout": {lowered: "1s", run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		answer, err := do(newRequest(ctx, http.MethodGet, s.url("/v1/sleep"), nil), true)
		return "GET of a method that answers only when cancelled, no Grpc-Timeout", answer, err
	}},
	"read-header-timeout": {lowered: "1s", run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		answer, err := rawAnswer(s.addr, "GET /v1/ping HTTP/1.1\r\nHost: x\r\n", 10*time.Second)
		return "a request's first header lines, then nothing", answer, err
	}},
	"idle-timeout": {lowered: "2s", run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		c, err := net.DialTimeout("tcp", s.addr, 5*time.Second)
		if err != nil {
			return "", "", err
		}
		defer c.Close()
		u, _ := url.Parse(s.url("/v1/ping"))
		if !requestOnce(c, u) {
			return "", "", fmt.Errorf("the first request failed")
		}
		start := time.Now()
		answer := closedAfter(c, start, 10*time.Second)
		return "one request on a keep-alive connection, then nothing", answer, nil
	}},
	"max-connections": {lowered: "20", run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		u, _ := url.Parse(s.url("/v1/ping"))
		idle, served := openIdle(ctx, u, 20, true)
		defer func() {
			for _, c := range idle {
				c.Close()
			}
		}()
		if served != 20 {
			return "", "", fmt.Errorf("%d of 20 idle connections served", served)
		}
		client := probe(ctx, s.url("/v1/ping"), 1, 0, 5*time.Second)
		return "20 keep-alive connections left idle, then a 21st makes a request",
			fmt.Sprintf("the 21st: %s; the idle ones still open: %d of 20", client, stillOpen(idle)), nil
	}},
	"max-concurrent-streams": {run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		n, err := intOf(f)
		if err != nil {
			return "", "", err
		}
		answer, err := h2Streams(s.addr, "/v1/sleep", n+1)
		return fmt.Sprintf("h2c: %d streams at once on one connection, each a call that waits", n+1), answer, err
	}},
	// Flags of branches that are not merged everywhere yet: measured
	// when serve --help lists them.
	"read-idle-timeout": {lowered: "1s", run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		answer, err := rawAnswer(s.addr, "POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{\"a\":", 15*time.Second)
		return "POST announcing 10 bytes of body, 5 sent, then nothing", answer, err
	}},
	"stream-idle-timeout": {lowered: "1s", run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		start := time.Now()
		res, err := (&http.Client{Timeout: 15 * time.Second}).Do(newRequest(ctx, http.MethodGet, s.url("/v1/hold"), nil))
		if err != nil {
			return "", "", err
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		answer := fmt.Sprintf("%s, ended after %s: %q", res.Status, time.Since(start).Round(10*time.Millisecond), cut(strings.TrimSpace(string(body)), 120))
		if err != nil {
			answer += fmt.Sprintf(" (then %v)", err)
		}
		return "GET of a server stream that sends nothing", answer, nil
	}},
	"max-response-bytes": {lowered: "1KiB", run: func(ctx context.Context, s *serveProc, f helpFlag) (string, string, error) {
		answer, err := do(newRequest(ctx, http.MethodGet, s.url("/v1/bytes?value=4096"), nil), false)
		return "GET of a 4096-byte upstream answer", answer, err
	}},
}

// rawAnswer writes request on a new connection and spells what came
// back: a response, or the connection closed, and after how long.
func rawAnswer(addr, request string, limit time.Duration) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	start := time.Now()
	if _, err := io.WriteString(c, request); err != nil {
		return "", err
	}
	c.SetReadDeadline(start.Add(limit))
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	took := time.Since(start).Round(10 * time.Millisecond)
	if err != nil {
		if isTimeout(err) {
			return fmt.Sprintf("nothing within %s, connection open", limit), nil
		}
		return fmt.Sprintf("connection closed after %s, no answer", took), nil
	}
	defer res.Body.Close()
	answer := statusAnswer(res) + ", after " + took.String()
	c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := br.ReadByte(); res.Close || !isTimeout(err) {
		answer += "; connection closed"
	}
	return answer, nil
}

// closedAfter waits for the server to close c, which has nothing left to
// read, and says when.
func closedAfter(c net.Conn, start time.Time, limit time.Duration) string {
	c.SetReadDeadline(start.Add(limit))
	var buf [1]byte
	if _, err := c.Read(buf[:]); isTimeout(err) {
		return fmt.Sprintf("still open after %s", limit)
	}
	return fmt.Sprintf("connection closed by serve after %s", time.Since(start).Round(10*time.Millisecond))
}

// isTimeout tells whether err is a read deadline passing.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
