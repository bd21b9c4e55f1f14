package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// slowReaders opens conns HTTP/1.1 connections, each with a 4 KiB receive
// buffer, sends a GET of a 58 KB answer on each, and reads each at 100
// bytes a second for hold; it says what they read, and how many serve
// closed.
func slowReaders(ctx context.Context, e *attackEnv, conns int, hold time.Duration) string {
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	ctx, cancel := context.WithTimeout(ctx, hold)
	defer cancel()
	var read, closed, failed atomic.Int64
	var wg sync.WaitGroup
	for range conns {
		c, err := d.DialContext(ctx, "tcp", e.serve.addr)
		if err != nil {
			failed.Add(1)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			context.AfterFunc(ctx, func() { c.Close() })
			if _, err := io.WriteString(c, "GET "+unaryPath+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
				return
			}
			buf := make([]byte, 100)
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				n, err := c.Read(buf)
				read.Add(int64(n))
				if err != nil {
					if ctx.Err() == nil {
						closed.Add(1)
					}
					return
				}
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
			}
		}()
	}
	wg.Wait()
	return fmt.Sprintf("%d connections (%d failed to connect): read %d bytes in all; closed by serve: %d", conns, failed.Load(), read.Load(), closed.Load())
}
