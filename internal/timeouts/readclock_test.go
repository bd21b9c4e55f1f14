package timeouts

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/httperr"
)

// TestReadClock reads request bodies through a ReadClock on a real
// server: a body that comes whole passes; one that stops gets the idle
// error; one that trickles (a byte every 20 ms, each read well within the
// idle timeout) gets the slow error once its budget (the idle timeout plus
// 2 ms a byte) has passed.
func TestReadClock(t *testing.T) {
	t.Parallel()
	const idle = 500 * time.Millisecond
	type result struct {
		n   int
		err error
	}
	results := make(chan result, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := new(ReadClock)
		c.Reset(r.Body, w, idle)
		n, err := io.Copy(io.Discard, c)
		if err == nil && c.Failure() != nil {
			err = errors.New("a failure after a whole body")
		}
		c.Release()
		results <- result{int(n), err}
	}))
	t.Cleanup(srv.Close)

	send := func(t *testing.T, write func(conn net.Conn)) result {
		t.Helper()
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		io.WriteString(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
		go write(conn)
		select {
		case res := <-results:
			return res
		case <-time.After(10 * time.Second):
			t.Fatal("the read was never cut")
			return result{}
		}
	}

	t.Run("whole", func(t *testing.T) {
		res := send(t, func(conn net.Conn) { io.WriteString(conn, strings.Repeat("x", 1000)) })
		if res.err != nil || res.n != 1000 {
			t.Fatalf("read %d bytes, %v", res.n, res.err)
		}
	})
	t.Run("stops", func(t *testing.T) {
		start := time.Now()
		res := send(t, func(conn net.Conn) { io.WriteString(conn, "abc") })
		if got := httperr.Status(res.err); got != http.StatusRequestTimeout || status.Code(res.err) != codes.DeadlineExceeded {
			t.Fatalf("%d %v, want 408 DEADLINE_EXCEEDED", got, res.err)
		}
		if !strings.Contains(res.err.Error(), "no request body bytes for 500ms") {
			t.Errorf("message %q", res.err)
		}
		if res.n != 3 || time.Since(start) < idle {
			t.Errorf("read %d bytes in %v", res.n, time.Since(start))
		}
	})
	t.Run("trickles", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		res := send(t, func(conn net.Conn) {
			for ctx.Err() == nil {
				if _, err := conn.Write([]byte("x")); err != nil {
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
		if !errors.Is(res.err, errReadSlow) {
			t.Fatalf("%v, want %v", res.err, errReadSlow)
		}
		if res.n < 5 {
			t.Errorf("cut after %d bytes: before the idle timeout had passed", res.n)
		}
	})
}

// TestReadClockBetweenMessages: the wait for a stream's next message is
// not timed (Await), the reads of a message are (Begin).
func TestReadClockBetweenMessages(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	c := new(ReadClock)
	c.Reset(pr, httptest.NewRecorder(), 20*time.Millisecond)
	c.Await()
	go func() {
		time.Sleep(100 * time.Millisecond) // five idle timeouts
		pw.Write([]byte("next"))
	}()
	buf := make([]byte, 10)
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "next" {
		t.Fatalf("a read between messages: %q, %v", buf[:n], err)
	}
	c.Begin()
	go func() {
		time.Sleep(100 * time.Millisecond)
		pw.Write([]byte("late")) // unblocks the read; the recorder has no deadline to cut it
	}()
	_, err := c.Read(buf)
	if httperr.Status(err) != http.StatusRequestTimeout {
		t.Fatalf("a read within a message past the idle timeout: %v", err)
	}
	if _, again := c.Read(buf); again != err {
		t.Fatalf("the next read: %v, want %v again", again, err)
	}
	c.Await()
	if _, again := c.Read(buf); again != err {
		t.Fatalf("after the failure, Await does not untime reads: %v", again)
	}
}
