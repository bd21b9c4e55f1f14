package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"
)

// runSlowBody opens many connections that each start a POST and then send
// its body slowly, and times a legitimate client meanwhile. -shape trickle
// sends a byte a second, -shape stall ten bytes and then nothing. The row
// says what the slow senders got by the end of -for (a status and when,
// the connection closed, or still sending) and how the client fared.
func runSlowBody(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("slowbody", flag.ContinueOnError)
	target := fs.String("url", "", "the POST route the slow bodies go to")
	probeURL := fs.String("probe", "", "a GET the legitimate client makes")
	conns := fs.Int("conns", 100, "slow connections")
	shape := fs.String("shape", "trickle", "trickle (a byte a second) or stall (ten bytes, then nothing)")
	hold := fs.Duration("for", 15*time.Second, "how long the slow senders go on")
	probes := fs.Int("probes", 10, "requests of the legitimate client, spread over -for")
	timeout := fs.Duration("timeout", 3*time.Second, "how long the client waits for an answer")
	serveFlags := fs.String("serve-flags", "", "what serve ran with, for the row")
	pid := fs.Int("pid", 0, "serve's process ID, for its descriptors")
	header := fs.Bool("header", true, "print the table's header")
	if err := fs.Parse(args); err != nil {
		return err
	}
	u, err := url.Parse(*target)
	if err != nil || u.Host == "" {
		return fmt.Errorf("-url: want an http URL, got %q", *target)
	}
	if *shape != "trickle" && *shape != "stall" {
		return fmt.Errorf("-shape: want trickle or stall")
	}

	floodCtx, stop := context.WithTimeout(ctx, *hold)
	defer stop()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		outcomes []slowOutcome
	)
	d := net.Dialer{Timeout: 5 * time.Second}
	for range *conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := slowPost(floodCtx, &d, u, *shape)
			mu.Lock()
			outcomes = append(outcomes, o)
			mu.Unlock()
		}()
	}
	// The client starts once the slow senders are all sending.
	time.Sleep(2 * time.Second)
	fds := "n/a"
	if *pid != 0 {
		if st, err := readProc(*pid); err == nil {
			fds = strconv.Itoa(st.fds)
		}
	}
	interval := (*hold - 2*time.Second - *timeout) / time.Duration(max(*probes, 1))
	client := probe(ctx, *probeURL, *probes, max(interval, 100*time.Millisecond), *timeout)
	wg.Wait()

	t := &table{w: stdout, cols: 7}
	if *header {
		t = newTable(stdout, "slow senders", "serve flags", "held for", "what the slow senders got", "their first answer after", "serve fds during", "legitimate client (new connection each)")
	}
	t.Row(fmt.Sprintf("%d × %s", *conns, *shape), *serveFlags, hold.String(), outcomeText(outcomes), firstAnswer(outcomes), fds, client.String())
	return nil
}

// slowOutcome is what one slow sender got: a status (0: none), after how
// long, or closed without an answer; sending means neither happened.
type slowOutcome struct {
	status  int
	closed  bool
	after   time.Duration
	refused bool // the connection could not be made
}

// slowBodyLength is the Content-Length a slow sender announces: more than
// it will send in the time it has.
const slowBodyLength = 4096

// slowPost sends a POST's headers and then its body in the shape asked,
// until ctx ends, the server answers or it closes the connection.
func slowPost(ctx context.Context, d *net.Dialer, u *url.URL, shape string) slowOutcome {
	c, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return slowOutcome{refused: true}
	}
	defer c.Close()
	start := time.Now()
	if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		u.RequestURI(), u.Host, slowBodyLength); err != nil {
		return slowOutcome{closed: true, after: time.Since(start)}
	}
	answered := make(chan slowOutcome, 1)
	go func() {
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			answered <- slowOutcome{closed: true, after: time.Since(start)}
			return
		}
		res.Body.Close()
		answered <- slowOutcome{status: res.StatusCode, after: time.Since(start)}
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for i := 0; ; i++ {
		if chunk := slowChunk(shape, i); chunk != nil {
			if _, err := c.Write(chunk); err != nil {
				select {
				case o := <-answered:
					return o
				case <-time.After(time.Second):
					return slowOutcome{closed: true, after: time.Since(start)}
				}
			}
		}
		select {
		case o := <-answered:
			return o
		case <-ctx.Done():
			return slowOutcome{}
		case <-tick.C:
		}
	}
}

// slowChunk is what a slow sender writes at its i-th second: a trickle
// sends "{" and then a space a second (a body that stays valid JSON so
// far), a stall ten bytes at once and then nothing.
func slowChunk(shape string, i int) []byte {
	switch {
	case shape == "stall" && i == 0:
		return []byte(`{"msg":"ab`)
	case shape == "stall":
		return nil
	case i == 0:
		return []byte("{")
	}
	return []byte(" ")
}

// outcomeText counts the outcomes: "408: 100", "closed: 3", "still
// sending: 97".
func outcomeText(outcomes []slowOutcome) string {
	counts := map[string]int{}
	for _, o := range outcomes {
		switch {
		case o.refused:
			counts["could not connect"]++
		case o.status != 0:
			counts[strconv.Itoa(o.status)]++
		case o.closed:
			counts["closed, no answer"]++
		default:
			counts["still sending"]++
		}
	}
	return errorText(counts)
}

// firstAnswer is the median time to a status or a close, among those that
// got one.
func firstAnswer(outcomes []slowOutcome) string {
	var d []time.Duration
	for _, o := range outcomes {
		if o.status != 0 || o.closed {
			d = append(d, o.after)
		}
	}
	if len(d) == 0 {
		return "none"
	}
	slices.Sort(d)
	return "p50 " + ms(percentile(d, 50)) + ", max " + ms(d[len(d)-1])
}
