package protorest_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkServerStream measures a 10,000-message server stream over a
// real HTTP/1.1 connection, in-process and through a gRPC backend, per
// framing: messages per second, and allocations per message. An op is a
// whole stream, so allocs/op is per 10,000 messages; allocs/msg divides
// it out. Both count the whole process: the HTTP client and, for
// "remote", the gRPC backend, as well as the gateway.
func BenchmarkServerStream(b *testing.B) {
	const n = 10000
	urls, _ := streamGateways(b)
	for _, gw := range []string{"in-process", "remote"} {
		for _, f := range []struct{ name, accept string }{
			{"envelope", ""},
			{"sse", "text/event-stream"},
			{"binary", "application/proto"},
		} {
			b.Run(gw+"/"+f.name, func(b *testing.B) {
				b.ReportAllocs()
				url := fmt.Sprintf("%s/v1/watch/w?i32=%d", urls[gw], n)
				before := mallocs()
				for b.Loop() {
					req, _ := http.NewRequest("GET", url, nil)
					if f.accept != "" {
						req.Header.Set("Accept", f.accept)
					}
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					got, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 || got < n*10 {
						b.Fatalf("status %d, %d bytes", resp.StatusCode, got)
					}
				}
				reportPerMessage(b, n, before)
			})
		}
	}
}

// BenchmarkClientStream measures a 10,000-message NDJSON client stream,
// with the same metrics as BenchmarkServerStream.
func BenchmarkClientStream(b *testing.B) {
	const n = 10000
	urls, _ := streamGateways(b)
	body := []byte(strings.Repeat(`{"name":"n","i32":7,"tags":["a","b"]}`+"\n", n))
	for _, gw := range []string{"in-process", "remote"} {
		b.Run(gw, func(b *testing.B) {
			b.ReportAllocs()
			before := mallocs()
			for b.Loop() {
				resp, err := http.Post(urls[gw]+"/v1/bulk", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				out, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || !strings.Contains(string(out), `"i32":10000`) {
					b.Fatalf("%d %.200s", resp.StatusCode, out)
				}
			}
			reportPerMessage(b, n, before)
		})
	}
}

// mallocs is the process's count of heap allocations so far.
func mallocs() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs
}

// reportPerMessage reports the messages per second and the allocations
// per message of b's streams of n messages each, counting allocations
// from before (mallocs, read before the loop).
func reportPerMessage(b *testing.B, n int, before uint64) {
	msgs := float64(n * b.N)
	b.ReportMetric(msgs/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric(float64(mallocs()-before)/msgs, "allocs/msg")
}

// TestStreamSlowReaderBackpressure streams 54 MiB (40,000 messages of
// 1 KiB, as base64 in JSON) to a client that reads slowly, and checks that the gateway does
// not buffer ahead of it: what the method has sent but the client not yet
// read stays within the transport's buffers (socket buffers; for a remote
// backend, also gRPC's flow-control windows), and the heap does not grow
// with the stream.
func TestStreamSlowReaderBackpressure(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 54 MiB")
	}
	// Not parallel: the heap it watches is the whole test binary's.
	const n, size = 40000, 1024
	urls, streamers := streamGateways(t)
	for _, gw := range []string{"in-process", "remote"} {
		resp, err := http.Get(fmt.Sprintf("%s/v1/watch/slow?i32=%d&id=%d", urls[gw], n, size))
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReaderSize(resp.Body, 64<<10)
		var read, maxAhead int64
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		baseHeap := ms.HeapInuse
		peakHeap := baseHeap
		buf := make([]byte, 64<<10)
		for i := 0; ; i++ {
			k, err := r.Read(buf)
			read += int64(k)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if i%8 != 0 {
				continue
			}
			if read < 8<<20 { // slow for the first 8 MiB
				time.Sleep(20 * time.Millisecond)
			}
			// Messages sent, as bytes on the wire (~1.4 KiB each in the
			// envelope), less what the client has read; and the heap,
			// sampled over the whole stream.
			ahead := streamers[gw].sent.Load()*(size*4/3+60) - read
			maxAhead = max(maxAhead, ahead)
			runtime.ReadMemStats(&ms)
			peakHeap = max(peakHeap, ms.HeapInuse)
		}
		resp.Body.Close()
		t.Logf("%s: read %.1f MiB; at most %.1f MiB sent ahead of the reader; heap in use %.1f MiB, at most %.1f MiB in samples every 8 reads",
			gw, float64(read)/(1<<20), float64(maxAhead)/(1<<20), float64(baseHeap)/(1<<20), float64(peakHeap)/(1<<20))
		if streamers[gw].sent.Load() != n {
			t.Errorf("%s: %d messages sent, want %d", gw, streamers[gw].sent.Load(), n)
		}
		if maxAhead > 16<<20 {
			t.Errorf("%s: %.1f MiB sent ahead of a slow reader: the gateway buffers", gw, float64(maxAhead)/(1<<20))
		}
		if peakHeap > baseHeap+32<<20 {
			t.Errorf("%s: heap grew from %.1f to %.1f MiB", gw, float64(baseHeap)/(1<<20), float64(peakHeap)/(1<<20))
		}
	}
}

// zeroReader yields n zero bytes.
type zeroReader struct{ n int64 }

func (z *zeroReader) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), z.n))
	clear(p[:k])
	z.n -= int64(k)
	return k, nil
}

// TestClientStreamConstantMemory uploads a large client stream of
// google.api.HttpBody chunks (256 MiB; PROTOREST_STREAM_MIB sets another
// size) and checks that the heap does not grow with it: the body is read
// as it arrives, one chunk at a time.
func TestClientStreamConstantMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 256 MiB")
	}
	// Not parallel: the heap it watches is the whole test binary's.
	mib := int64(256)
	if v := os.Getenv("PROTOREST_STREAM_MIB"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		mib = n
	}
	urls, _ := streamGateways(t)
	for _, gw := range []string{"in-process", "remote"} {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base := ms.HeapInuse
		var peak uint64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			for {
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
				}
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}()
		start := time.Now()
		req, _ := http.NewRequest("POST", urls[gw]+"/v1/stream-uploads/big", &zeroReader{n: mib << 20})
		req.Header.Set("Content-Type", "application/octet-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(start)
		close(stop)
		<-sampled
		if resp.StatusCode != 200 || !strings.Contains(string(body), fmt.Sprintf(`"id":"%d"`, mib<<20)) {
			t.Fatalf("%s: %d %.200s", gw, resp.StatusCode, body)
		}
		t.Logf("%s: %d MiB in %v (%.0f MiB/s); heap in use %.1f MiB → peak %.1f MiB",
			gw, mib, took.Round(time.Millisecond), float64(mib)/took.Seconds(), float64(base)/(1<<20), float64(peak)/(1<<20))
		if peak > base+64<<20 {
			t.Errorf("%s: the heap grew from %.1f to %.1f MiB for a %d MiB stream", gw, float64(base)/(1<<20), float64(peak)/(1<<20), mib)
		}
	}
}
