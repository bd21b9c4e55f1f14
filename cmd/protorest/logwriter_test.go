package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestLogWriterKeepsOrder: a record written through the logWriter comes
// after the lines added before it, which are written first.
func TestLogWriterKeepsOrder(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	w := newLogWriter(&out)
	w.Line([]byte("line 1\n"))
	w.Line([]byte("line 2\n"))
	fmt.Fprint(w, "record\n")
	w.Line([]byte("line 3\n"))
	if got := out.String(); got != "line 1\nline 2\nrecord\n" {
		t.Errorf("before Close: %q", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "line 1\nline 2\nrecord\nline 3\n" {
		t.Errorf("after Close: %q", got)
	}
	w.Line([]byte("late\n"))
	if w.Dropped() != 1 || strings.Contains(out.String(), "late") {
		t.Errorf("a line after Close: dropped %d, output %q", w.Dropped(), out.String())
	}
}

// TestLogWriterFlushesOnTime: a line is written within the flush
// interval, without Close.
func TestLogWriterFlushesOnTime(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	w := newLogWriter(&out)
	defer w.Close()
	added := time.Now()
	w.Line([]byte("line\n"))
	for out.String() == "" {
		if time.Since(added) > 5*time.Second {
			t.Fatal("the line was not written in 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("written %v after it was added (the interval is %v)", time.Since(added), logFlushInterval)
}

// stuckWriter blocks every Write until it is released.
type stuckWriter struct {
	release chan struct{}
	out     syncBuffer
}

func (s *stuckWriter) Write(p []byte) (int, error) {
	<-s.release
	return s.out.Write(p)
}

// TestLogWriterDropsWhenFull: with the output stuck, lines fill the
// buffer and the rest are dropped and counted, without waiting; once the
// output moves, the kept lines are all written, and a WARN record says
// how many were dropped.
func TestLogWriterDropsWhenFull(t *testing.T) {
	t.Parallel()
	stuck := &stuckWriter{release: make(chan struct{})}
	w := newLogWriter(stuck)
	w.warnWith(slog.New(slog.NewJSONHandler(w, nil)))
	line := []byte(strings.Repeat("x", 99) + "\n")
	const n = 3 * logBufferBytes / 100 // three buffers' worth
	start := time.Now()
	for range n {
		w.Line(line)
	}
	took := time.Since(start)
	dropped := w.Dropped()
	if dropped == 0 || dropped >= n {
		t.Fatalf("%d of %d lines dropped with the output stuck", dropped, n)
	}
	if took > 2*time.Second {
		t.Errorf("adding %d lines to a stuck log took %v: Line waited", n, took)
	}
	close(stuck.release)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := stuck.out.String()
	if kept := int64(strings.Count(out, string(line))); kept != n-dropped {
		t.Errorf("%d lines written, want %d kept of %d", kept, n-dropped, n)
	}
	warn := out[strings.LastIndex(out, string(line))+len(line):]
	var rec map[string]any
	if err := json.Unmarshal([]byte(warn), &rec); err != nil || rec["level"] != "WARN" || rec["dropped_total"] != float64(dropped) {
		t.Errorf("after the lines: %q (%v), want a WARN record of %d dropped", warn, err, dropped)
	}
	t.Logf("%d of %d lines dropped, in %v", dropped, n, took)
}

// BenchmarkLogWriterLine: the cost of adding a line on the request path.
func BenchmarkLogWriterLine(b *testing.B) {
	w := newLogWriter(io.Discard)
	defer w.Close()
	line := []byte(strings.Repeat("x", 300) + "\n")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			w.Line(line)
		}
	})
}

// subprocessEnv, set, makes the test binary run main: serve in a process
// of its own, which a test can send SIGTERM.
const subprocessEnv = "PROTOREST_CMD_TEST_SUBPROCESS"

func TestMain(m *testing.M) {
	if os.Getenv(subprocessEnv) == "1" {
		os.Unsetenv(subprocessEnv)
		main()
		return
	}
	os.Exit(m.Run())
}

// startServeProcess runs "protorest serve args... --listen 127.0.0.1:0"
// in a process of its own (the test binary as main) with env added to
// the environment, and returns its URL, the process and its stderr. It
// is killed when the test ends, unless it exited.
func startServeProcess(t *testing.T, env []string, args ...string) (string, *exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(append(os.Environ(), subprocessEnv+"=1"), env...)
	stderr := new(syncBuffer)
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	url := ""
	for s := bufio.NewScanner(stdout); s.Scan(); {
		if _, a, ok := strings.Cut(s.Text(), "HTTP/JSON on "); ok {
			url = "http://" + strings.Fields(a)[0]
			break
		}
	}
	go io.Copy(io.Discard, stdout)
	if url == "" {
		t.Fatalf("serve did not say where it listens: %s", stderr.String())
	}
	return url, cmd, stderr
}

// TestAccessLogSIGTERM: serve in a process of its own answers requests
// from several clients, then gets SIGTERM while streams are still
// answering, and exits 0 having written one access log line per request:
// the lines of the streams, logged while serve drains and after its last
// other record, wait in the buffer until it exits, and none is lost.
func TestAccessLogSIGTERM(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	upstreamAt(t, addr, false)
	url, cmd, stderr := startServeProcess(t, nil, "--upstream", addr, "--log-format", "json")
	get := func(method, path, body string) (string, error) {
		req, err := http.NewRequest(method, url+path, strings.NewReader(body))
		if err != nil {
			return "", err
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err == nil && res.StatusCode != 200 {
			err = fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, b)
		}
		return string(b), err
	}
	const clients, each, streams = 8, 100, 4
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				if _, err := get("POST", "/api/v1/example/upper", fmt.Sprintf(`{"msg":"c%di%d"}`, c, i)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for range streams {
		wg.Go(func() {
			body, err := get("GET", "/api/v1/example/watch?count=4&intervalMs=150", "")
			if err != nil || strings.Count(body, `{"result":`) != 4 {
				t.Errorf("a stream through SIGTERM: %v %q", err, body)
			}
		})
	}
	time.Sleep(200 * time.Millisecond) // the streams have begun
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve on SIGTERM: %v: %s", err, stderr.String())
	}
	lines, drained := 0, false
	for _, l := range bytes.Split([]byte(stderr.String()), []byte("\n")) {
		var rec map[string]any
		if json.Unmarshal(l, &rec) != nil {
			continue
		}
		switch {
		case rec["msg"] == "protorest draining":
			drained = true
		case rec["msg"] == "request" && rec["http.response.status_code"] == 200.0:
			lines++
		}
	}
	if want := clients*each + streams; lines != want || !drained {
		t.Errorf("%d access log lines for %d requests (drained: %v)", lines, want, drained)
	}
}
