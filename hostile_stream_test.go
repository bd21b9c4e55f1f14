package protorest_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
)

// The streaming and WebSocket shapes of the catalogue: each is a short
// conversation, not one request and response. R3 (a POST stream whose
// client leaves before its body ends) has no rule here without a body:
// the :post binding of Watch reads its body before the call, so the
// method is never called; TestServerStreamPostClientGone covers it. R1
// (≤ 2 messages buffered for a stalled reader), R4 (a concurrent-stream
// limit: not built), R9 and R10 (HTTP/2 rapid reset and CONTINUATION
// floods, which need an http2.Framer client) are not here.
func hostileStreamShapes() []hostileShape {
	return []hostileShape{
		{id: "R2", run: leaveStream("GET", "/v1/watch/w?flag=true"), status: 200},
		{id: "R6", method: "POST", target: "/v1/bulk", body: `{"name":"` + strings.Repeat("a", 5<<20) + `"}` + "\n", status: 413, code: codes.ResourceExhausted, mem: 6 * (4 << 20)},
		{id: "R7/bad first", method: "POST", target: "/v1/chat", body: "{bad\n", status: 400, code: codes.InvalidArgument},
		{id: "R8/envelope", method: "GET", target: "/v1/watch/fail-after?i32=2", status: 200, check: bodyHas(`{"error":{"code":13,"message":"it broke"`)},
		{id: "R8/SSE", method: "GET", target: "/v1/watch/fail-after?i32=2", header: []string{"Accept", "text/event-stream"}, status: 200, check: bodyHas("event: error\n")},
		{id: "W1", run: wsShape("/v1/chat", []string{"Origin", "https://evil.example"}, nil, 0), status: 403, code: codes.PermissionDenied, nc: true},
		{id: "W2", run: wsShape("/v1/chat", nil, [][]byte{wsFrame(1, `{"name":"a"}`, true), wsFrame(8, "\x03\xe8", true)}, 1000), status: 101},
		{id: "W3/message", run: wsShape("/v1/chat", nil, [][]byte{wsFrame(1, `{"name":"`+strings.Repeat("a", 5<<20)+`"}`, true)}, 1009), status: 101, mem: 5 * (4 << 20)},
		// 12× the limit (25 to 40 MiB measured): coder/websocket's
		// Conn.Read grows the message with io.ReadAll, by a quarter at a
		// time, to the 4 MiB limit, and each 64-byte frame costs its own
		// reads. Bounded by the limit, not by what the client sends, but
		// the most wasteful shape here.
		{id: "W3/fragments", run: wsShape("/v1/chat", nil, fragments(100000), 1009), status: 101, mem: 12 * (4 << 20)},
		{id: "R7/full duplex", run: badAfterThree, status: 200, check: bodyHas(`{"error":{"code":3,`)},
		{id: "W4", run: badWebSocketVersion, status: 400, plain: "coder/websocket answers a failed handshake in plain text"},
		{id: "W5", method: "GET", target: "/v1/probes/abc", header: wsHeaders(), status: 200,
			diff: "a server may ignore Upgrade (RFC 9110 §7.8): a unary route is served as the GET it is, never a 101"},
		{id: "W6", run: wsShape("/v1/chat", nil, [][]byte{wsFrame(1, "{\"name\":\"\xff\"}", true)}, 1007), status: 101},
		{id: "W6/close reason", run: wsShape("/v1/chat", nil, [][]byte{wsFrame(1, `{"name":"a"}`, true), wsFrame(8, "\x03\xe8bad \xff\xfe", true)}, 1007), status: 101},
		{id: "W6/close reason UTF-8", run: wsShape("/v1/chat", nil, [][]byte{wsFrame(8, "\x03\xe8bye, \u00e9t\u00e9", true)}, 1000), status: 101},
		{id: "W6/unmasked", run: wsShape("/v1/chat", nil, [][]byte{wsFrame(1, `{"name":"a"}`, false)}, 1002), status: 101},
		{id: "W6/2^62 bytes", run: wsShape("/v1/chat", nil, [][]byte{wsHugeHeader()}, 1009), status: 101, check: within(2 * time.Second)},
		{id: "W7", run: wsShape("/v1/chat", nil, pings(10000), 1000), status: 101, check: within(5 * time.Second)},
	}
}

// leaveStream is R2 and R3: the client goes away mid-stream; the method's
// context must end within a second.
func leaveStream(method, target string) func(*testing.T, *hostileEnv) hostileResp {
	return func(t *testing.T, e *hostileEnv) hostileResp {
		s := e.backend.streams.Load()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var body io.Reader
		if method == "POST" {
			pr, pw := io.Pipe() // a body that never ends
			defer pw.Close()
			body = pr
		}
		req, _ := http.NewRequestWithContext(ctx, method, e.url+target, body)
		got := make(chan int, 1)
		go func() {
			// Remote, the response starts with the first message, which
			// never comes: the status may arrive only as the call ends.
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				got <- 0
				return
			}
			resp.Body.Close()
			got <- resp.StatusCode
		}()
		select {
		case <-s.started:
		case <-time.After(5 * time.Second):
			t.Fatal("the stream did not start")
		}
		cancel()
		select {
		case <-s.canceled:
		case <-time.After(time.Second):
			t.Error("the method's context did not end within a second of the client leaving")
		}
		status := <-got
		if status == 0 {
			status = http.StatusOK // the client left before the response: nothing to see
		}
		return hostileResp{status: status}
	}
}

// wsShape opens a WebSocket at target (with header), writes frames, and
// expects the server to close with code (0: the handshake fails).
func wsShape(target string, header []string, frames [][]byte, code int) func(*testing.T, *hostileEnv) hostileResp {
	return func(t *testing.T, e *hostileEnv) hostileResp {
		conn, br, r := wsHandshake(t, e.addr, target, header)
		defer conn.Close()
		start := time.Now()
		if r.status != http.StatusSwitchingProtocols {
			return r
		}
		go func() {
			for _, f := range frames {
				if _, err := conn.Write(f); err != nil {
					return // the server closed: what it said is read below
				}
			}
		}()
		got, reason, err := wsReadClose(br)
		if err != nil {
			t.Fatalf("no close frame: %v", err)
		}
		if got != code {
			t.Errorf("close %d %q, want %d", got, reason, code)
		}
		r.took = time.Since(start)
		return r
	}
}

func wsHeaders() []string {
	key := make([]byte, 16)
	rand.Read(key)
	return []string{"Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", base64.StdEncoding.EncodeToString(key)}
}

// wsHandshake opens a WebSocket over a raw connection (whose frames a
// shape writes as it likes) and returns the handshake's response.
func wsHandshake(t *testing.T, addr, target string, header []string) (net.Conn, *bufio.Reader, hostileResp) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\n", target, addr)
	h := append(wsHeaders(), header...)
	for i := 0; i+1 < len(h); i += 2 {
		fmt.Fprintf(&b, "%s: %s\r\n", h[i], h[i+1])
	}
	b.WriteString("\r\n")
	if _, err := conn.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := hostileResp{status: resp.StatusCode, header: resp.Header}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(resp.Body)
		r.body = string(body)
	}
	return conn, br, r
}

// wsFrame is one client frame (FIN set), masked unless told not to be.
func wsFrame(opcode byte, payload string, masked bool) []byte {
	return wsFrameFin(opcode, payload, masked, true)
}

func wsFrameFin(opcode byte, payload string, masked, fin bool) []byte {
	b0 := opcode
	if fin {
		b0 |= 0x80
	}
	f := []byte{b0}
	var m byte
	if masked {
		m = 0x80
	}
	switch n := len(payload); {
	case n < 126:
		f = append(f, m|byte(n))
	case n <= 0xffff:
		f = append(f, m|126)
		f = binary.BigEndian.AppendUint16(f, uint16(n))
	default:
		f = append(f, m|127)
		f = binary.BigEndian.AppendUint64(f, uint64(n))
	}
	if !masked {
		return append(f, payload...)
	}
	key := [4]byte{1, 2, 3, 4}
	f = append(f, key[:]...)
	for i := 0; i < len(payload); i++ {
		f = append(f, payload[i]^key[i%4])
	}
	return f
}

// wsHugeHeader is the header of a masked text frame that claims 2^62
// bytes, and no payload.
func wsHugeHeader() []byte {
	f := []byte{0x81, 0x80 | 127}
	f = binary.BigEndian.AppendUint64(f, 1<<62)
	return append(f, 1, 2, 3, 4)
}

// fragments is one text message in n continuation frames of 64 bytes,
// more than the read limit in all.
func fragments(n int) [][]byte {
	fs := [][]byte{wsFrameFin(1, strings.Repeat("a", 64), true, false)}
	for range n - 1 {
		fs = append(fs, wsFrameFin(0, strings.Repeat("a", 64), true, false))
	}
	return fs
}

// pings is n pings, then a normal close.
func pings(n int) [][]byte {
	var fs [][]byte
	for range n {
		fs = append(fs, wsFrame(9, "p", true))
	}
	return append(fs, wsFrame(8, "\x03\xe8", true))
}

// wsReadClose reads server frames until the close frame and returns its
// code and reason.
func wsReadClose(br *bufio.Reader) (int, string, error) {
	for {
		var h [2]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return 0, "", err
		}
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var l [2]byte
			if _, err := io.ReadFull(br, l[:]); err != nil {
				return 0, "", err
			}
			n = uint64(binary.BigEndian.Uint16(l[:]))
		case 127:
			var l [8]byte
			if _, err := io.ReadFull(br, l[:]); err != nil {
				return 0, "", err
			}
			n = binary.BigEndian.Uint64(l[:])
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(br, payload); err != nil {
			return 0, "", err
		}
		if h[0]&0x0f == 8 {
			if len(payload) < 2 {
				return 1005, "", nil
			}
			return int(binary.BigEndian.Uint16(payload)), string(payload[2:]), nil
		}
	}
}

// badWebSocketVersion is W4: a handshake with a version the server does
// not speak is refused, and a request that follows on the connection is
// read as the HTTP request it is.
func badWebSocketVersion(t *testing.T, e *hostileEnv) hostileResp {
	conn, err := net.DialTimeout("tcp", e.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET /v1/chat HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 7\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"+
		"GET /v1/probes/follow HTTP/1.1\r\nHost: %[1]s\r\nConnection: close\r\n\r\n", e.addr)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	first := hostileResp{status: resp.StatusCode, header: resp.Header, body: string(body)}
	if resp.Close {
		return first // the server closed instead: nothing was smuggled
	}
	follow, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("the follow-up: %v", err)
	}
	b, _ := io.ReadAll(follow.Body)
	if follow.StatusCode != 200 || !strings.Contains(string(b), `"follow"`) {
		t.Errorf("the follow-up: %d %s", follow.StatusCode, b)
	}
	return first
}

// badAfterThree is R7 over HTTP/2, full duplex: three messages, each
// answered before the next is sent, then one that is not JSON. The
// response has started, so the error is in-band, in both gateways.
//
// Sent all at once (HTTP/1.1, half duplex), the same body is answered by
// the same rule, in both gateways: a 400 if the bad message is read
// before any reply has gone out, else the replies and an in-band error.
// Which comes first is a race: the in-process call reads one message
// ahead of its handler, which has answered the first ones by then; the
// remote relay reads ahead of the backend and cancels the call before its
// replies are back. Neither can wait for the other without changing what
// the method sees (a half-close would tell it the stream ended well).
func badAfterThree(t *testing.T, e *hostileEnv) hostileResp {
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	pr, pw := io.Pipe()
	defer pw.Close()
	req, _ := http.NewRequest("POST", e.url+"/v1/chat", pr)
	go fmt.Fprint(pw, `{"name":"a"}`+"\n")
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewReader(resp.Body)
	var body strings.Builder
	for i, name := range []string{"a", "b", "c"} {
		if i > 0 {
			fmt.Fprintf(pw, "{\"name\":%q}\n", name)
		}
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("reply %d: %v", i+1, err)
		}
		body.WriteString(line)
	}
	fmt.Fprint(pw, "{bad\n")
	pw.Close()
	rest, _ := io.ReadAll(lines)
	body.Write(rest)
	return hostileResp{status: resp.StatusCode, header: resp.Header, body: body.String()}
}
