package protorest_test

import (
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// envelope is one gRPC-Web frame: flag, big-endian length, data.
func envelope(flag byte, data []byte) []byte {
	out := make([]byte, 5, 5+len(data))
	out[0] = flag
	binary.BigEndian.PutUint32(out[1:], uint32(len(data)))
	return append(out, data...)
}

// decodeWebText decodes a gRPC-Web text body, four characters at a time
// (padding may come mid-stream), into its frames: the messages, and the
// trailer frame's text.
func decodeWebText(t *testing.T, text string) (messages [][]byte, trailer string) {
	t.Helper()
	if len(text)%4 != 0 {
		t.Fatalf("body of %d characters: %q", len(text), text)
	}
	var raw []byte
	for i := 0; i < len(text); i += 4 {
		b, err := base64.StdEncoding.DecodeString(text[i : i+4])
		if err != nil {
			t.Fatalf("not base64 at %d: %q", i, text)
		}
		raw = append(raw, b...)
	}
	for len(raw) >= 5 {
		n := int(binary.BigEndian.Uint32(raw[1:5]))
		if len(raw) < 5+n {
			t.Fatalf("truncated frame: %q", raw)
		}
		if raw[0]&0x80 != 0 {
			trailer = string(raw[5 : 5+n])
		} else {
			messages = append(messages, raw[5:5+n])
		}
		raw = raw[5+n:]
	}
	if len(raw) != 0 {
		t.Fatalf("%d bytes left over", len(raw))
	}
	return messages, trailer
}

// TestProtocolsGRPCWebText calls a server stream in gRPC-Web's text mode
// with raw net/http, over HTTP/1.1, in-process and remote: a request sent
// as two base64 chunks (padding mid-stream) is read, and the messages
// and the trailer frame (lower-case keys) come back in base64.
func TestProtocolsGRPCWebText(t *testing.T) {
	req, err := proto.Marshal(&confv1.Probe{Name: "w", I32: 2})
	if err != nil {
		t.Fatal(err)
	}
	frame := envelope(0, req)
	body := base64.StdEncoding.EncodeToString(frame[:4]) + base64.StdEncoding.EncodeToString(frame[4:])
	if !strings.Contains(body[:8], "=") {
		t.Fatalf("the request has no padding mid-stream: %q", body)
	}
	for kind, url := range protocolGateways(t) {
		t.Run(kind, func(t *testing.T) {
			resp, text := send(t, http.MethodPost, url+"/conf.v1.Probes/Watch", body,
				"Content-Type", "application/grpc-web-text", "Accept", "application/grpc-web-text", "X-Grpc-Web", "1")
			if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/grpc-web-text") {
				t.Fatalf("%d %s: %q", resp.StatusCode, resp.Header.Get("Content-Type"), text)
			}
			messages, trailer := decodeWebText(t, text)
			var names []string
			for _, m := range messages {
				var p confv1.Probe
				if err := proto.Unmarshal(m, &p); err != nil {
					t.Fatal(err)
				}
				names = append(names, p.GetName())
			}
			if strings.Join(names, ",") != "w-1,w-2" {
				t.Errorf("messages %q", names)
			}
			if !strings.Contains(trailer, "grpc-status: 0\r\n") || !strings.Contains(trailer, "x-watch-trailer: done\r\n") {
				t.Errorf("trailer frame %q", trailer)
			}
			if trailer != strings.ToLower(trailer) {
				t.Errorf("trailer keys not lower-case: %q", trailer)
			}

			resp, text = send(t, http.MethodPost, url+"/conf.v1.Probes/Watch", "AAAA!!!!",
				"Content-Type", "application/grpc-web-text")
			_, trailer = decodeWebText(t, text)
			code := resp.Header.Get("Grpc-Status") // a trailers-only response
			if strings.Contains(trailer, "grpc-status: 3\r\n") {
				code = "3"
			}
			if resp.StatusCode != http.StatusOK || code != "3" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/grpc-web-text") {
				t.Errorf("invalid base64: %d %v, trailer %q; want grpc-status 3", resp.StatusCode, resp.Header, trailer)
			}
		})
	}
}

// TestProtocolsHalfDuplexBidi: over HTTP/1.1, a bidirectional stream is
// half-duplex: a gRPC-Web client sends its messages, then reads the
// answers, in-process and remote (connect-go alone refuses it, 505).
func TestProtocolsHalfDuplexBidi(t *testing.T) {
	var body []byte
	for _, n := range []string{"a", "b"} {
		m, err := proto.Marshal(&confv1.Probe{Name: n})
		if err != nil {
			t.Fatal(err)
		}
		body = append(body, envelope(0, m)...)
	}
	for kind, url := range protocolGateways(t) {
		t.Run(kind, func(t *testing.T) {
			resp, text := send(t, http.MethodPost, url+"/conf.v1.Probes/Chat", base64.StdEncoding.EncodeToString(body),
				"Content-Type", "application/grpc-web-text")
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%d %q", resp.StatusCode, text)
			}
			messages, trailer := decodeWebText(t, text)
			var names []string
			for _, m := range messages {
				var p confv1.Probe
				if err := proto.Unmarshal(m, &p); err != nil {
					t.Fatal(err)
				}
				names = append(names, p.GetName())
			}
			if strings.Join(names, ",") != "re: a,re: b" || !strings.Contains(trailer, "grpc-status: 0\r\n") {
				t.Errorf("messages %q, trailer %q", names, trailer)
			}
		})
	}
}
