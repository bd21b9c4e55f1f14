package framing

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"time"
)

// envelope is msg with its prefix.
func envelope(msg string) []byte {
	b := make([]byte, EnvelopePrefix, EnvelopePrefix+len(msg))
	binary.BigEndian.PutUint32(b[1:], uint32(len(msg)))
	return append(b, msg...)
}

// TestEnvelopeFollowerWaitsForConsumer: with every message read whole
// and one not taken, a read that would begin the next waits, untimed,
// until the consumer takes it; Stop ends a waiting read.
func TestEnvelopeFollowerWaitsForConsumer(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	clock := &recordingClock{Reader: pr}
	fl := NewEnvelopeFollower(clock, 0, true)
	go func() {
		for _, m := range []string{"one", "two", "three"} {
			if _, err := pw.Write(envelope(m)); err != nil {
				return
			}
		}
	}()
	type read struct {
		b   []byte
		err error
	}
	reads := make(chan read)
	go func() {
		for {
			buf := make([]byte, 64)
			n, err := fl.Read(buf)
			reads <- read{buf[:n], err}
			if err != nil {
				return
			}
		}
	}()
	next := func(t *testing.T) read {
		t.Helper()
		select {
		case r := <-reads:
			return r
		case <-time.After(10 * time.Second):
			t.Fatal("no read")
			return read{}
		}
	}
	if r := next(t); !bytes.Equal(r.b, envelope("one")) || r.err != nil {
		t.Fatalf("first read %q, %v", r.b, r.err)
	}
	select {
	case r := <-reads:
		t.Fatalf("read %q, %v before the first message was taken", r.b, r.err)
	case <-time.After(100 * time.Millisecond):
	}
	fl.Consumed()
	if r := next(t); !bytes.Equal(r.b, envelope("two")) {
		t.Fatalf("second read %q, %v", r.b, r.err)
	}
	if clock.begins != 2 || clock.awaits != 2 {
		t.Errorf("%d Begin, %d Await, want 2 of each", clock.begins, clock.awaits)
	}
	fl.Stop()
	if r := next(t); len(r.b) != 0 || !errors.Is(r.err, errFollowerStopped) {
		t.Fatalf("a read after Stop: %q, %v", r.b, r.err)
	}
	pr.Close()
}

// TestEnvelopeFollowerTooLarge: a prefix over the limit fails the read
// that completes it, before the message's bytes are asked for, and every
// read after.
func TestEnvelopeFollowerTooLarge(t *testing.T) {
	t.Parallel()
	body := append(envelope("ok"), envelope("too long")...)
	fl := NewEnvelopeFollower(bytes.NewReader(body), 4, false)
	got, err := io.ReadAll(fl)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Max != 4 {
		t.Fatalf("error %v, want a TooLargeError of 4", err)
	}
	if len(got) > len(body) || !bytes.Equal(got, body[:len(got)]) {
		t.Fatalf("passed %q", got)
	}
	if n, again := fl.Read(make([]byte, 8)); n != 0 || again != err {
		t.Fatalf("the next read: %d, %v", n, again)
	}
	if fl.Failure() != err {
		t.Fatalf("Failure %v, want %v", fl.Failure(), err)
	}
}

// BenchmarkEnvelopeFollower passes a stream of 1 KiB messages, 16 KiB a
// read (grpc-go's), taking each message as it is read whole.
func BenchmarkEnvelopeFollower(b *testing.B) {
	var body []byte
	for range 256 {
		body = append(body, envelope(string(make([]byte, 1024)))...)
	}
	buf := make([]byte, 16<<10)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		fl := NewEnvelopeFollower(bytes.NewReader(body), 4<<20, true)
		taken := int64(0)
		for {
			_, err := fl.Read(buf)
			fl.mu.Lock()
			read := fl.read
			fl.mu.Unlock()
			for ; taken < read; taken++ {
				fl.Consumed()
			}
			if err != nil {
				break
			}
		}
	}
}
