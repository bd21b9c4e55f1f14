package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// runIdleFlood opens many connections to serve and leaves them idle,
// more than its --max-connections, then times a legitimate client. The
// flood's connections are keep-alive connections that made one request
// (-mode keepalive) or connections that never send a byte (-mode silent).
// The row says how many flood connections serve still held at the end
// (it closes the oldest idle ones to make room) and how the client fared.
func runIdleFlood(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("idleflood", flag.ContinueOnError)
	target := fs.String("url", "", "a GET the flood's connections make once (keepalive)")
	probeURL := fs.String("probe", "", "a GET the legitimate client makes (default -url)")
	conns := fs.Int("conns", 1000, "flood connections")
	mode := fs.String("mode", "keepalive", "keepalive (one request, then idle) or silent (not a byte)")
	probes := fs.Int("probes", 10, "requests of the legitimate client")
	timeout := fs.Duration("timeout", 5*time.Second, "how long the client waits for an answer")
	pid := fs.Int("pid", 0, "serve's process ID, for its descriptors")
	limit := fs.String("limit", "", "serve's --max-connections, for the row")
	header := fs.Bool("header", true, "print the table's header")
	if err := fs.Parse(args); err != nil {
		return err
	}
	u, err := url.Parse(*target)
	if err != nil || u.Host == "" {
		return fmt.Errorf("-url: want an http URL, got %q", *target)
	}
	if *mode != "keepalive" && *mode != "silent" {
		return fmt.Errorf("-mode: want keepalive or silent")
	}

	flood, served := openIdle(ctx, u, *conns, *mode == "keepalive")
	defer func() {
		for _, c := range flood {
			c.Close()
		}
	}()
	// Silent connections become evictable after a second of silence.
	time.Sleep(1500 * time.Millisecond)
	fds := "n/a"
	if *pid != 0 {
		if st, err := readProc(*pid); err == nil {
			fds = strconv.Itoa(st.fds)
		}
	}
	if *probeURL == "" {
		*probeURL = *target
	}
	client := probe(ctx, *probeURL, *probes, 200*time.Millisecond, *timeout)
	open := stillOpen(flood)

	withinSecond := len(client.served) == client.n && client.slowest <= time.Second
	t := &table{w: stdout, cols: 8}
	if *header {
		t = newTable(stdout, "flood", "--max-connections", "flood connections opened", "answered (keep-alive)", "still held by serve at the end", "serve fds during", "legitimate client (new connection each)", "all served within 1 s")
	}
	t.Row(*mode, *limit, strconv.Itoa(len(flood)), answered(*mode, served, len(flood)), strconv.Itoa(open), fds, client.String(), yesNo(withinSecond))
	if !withinSecond {
		return errNotWithinSecond
	}
	return nil
}

// errNotWithinSecond fails idleflood (exit status 1, after its row) when
// the legitimate client was not served within a second every time.
var errNotWithinSecond = errors.New("the legitimate client was not served within a second every time")

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

func answered(mode string, served, opened int) string {
	if mode == "silent" {
		return "(sent nothing)"
	}
	return fmt.Sprintf("%d/%d", served, opened)
}

// openIdle opens n connections to u's host, 50 at a time; with request,
// each sends a GET of u and reads the answer first. It returns the
// connections opened and how many got a 200.
func openIdle(ctx context.Context, u *url.URL, n int, request bool) ([]net.Conn, int) {
	var (
		mu     sync.Mutex
		conns  []net.Conn
		served int
		wg     sync.WaitGroup
		slots  = make(chan struct{}, 50)
	)
	d := net.Dialer{Timeout: 5 * time.Second}
	for range n {
		if ctx.Err() != nil {
			break
		}
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			c, err := d.DialContext(ctx, "tcp", u.Host)
			if err != nil {
				return
			}
			ok := false
			if request {
				ok = requestOnce(c, u)
			}
			mu.Lock()
			conns = append(conns, c)
			if ok {
				served++
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return conns, served
}

// requestOnce sends one keep-alive GET on c and reads its response.
func requestOnce(c net.Conn, u *url.URL) bool {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.SetDeadline(time.Time{})
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", u.RequestURI(), u.Host); err != nil {
		return false
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return false
	}
	defer res.Body.Close()
	_, err = io.Copy(io.Discard, res.Body)
	return err == nil && res.StatusCode == http.StatusOK
}

// stillOpen counts the connections the server has not closed: a read
// that times out finds the connection open, EOF or a reset closed.
func stillOpen(conns []net.Conn) int {
	open := 0
	var buf [1]byte
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(time.Millisecond))
		if _, err := c.Read(buf[:]); isTimeout(err) {
			open++
		}
	}
	return open
}
