package protocols

import (
	"encoding/binary"
	"encoding/json"
	"testing"

	"google.golang.org/grpc/codes"
)

// FuzzConnectEnd: a Connect stream's end message written as connect-go
// writes it (its prefix, then its data) gives the statusWriter the code
// it carries, whatever the data; other first writes give none; nothing
// panics.
func FuzzConnectEnd(f *testing.F) {
	f.Add(byte(2), []byte(`{"error":{"code":"internal","message":"x"}}`))
	f.Add(byte(2), []byte(`{"error":{"code":"resource_exhausted"}}`))
	f.Add(byte(2), []byte(`{}`))
	f.Add(byte(0), []byte(`{"error":{"code":"internal"}}`))
	f.Add(byte(2), []byte(`{"error":`))
	f.Add(byte(3), []byte{0xff, 0xfe})
	f.Fuzz(func(t *testing.T, flags byte, data []byte) {
		var prefix [5]byte
		prefix[0] = flags
		binary.BigEndian.PutUint32(prefix[1:], uint32(len(data)))
		n := connectEndPrefix("application/connect+json", prefix[:])
		if flags != 2 {
			if n != 0 {
				t.Fatalf("flags %#x: an end message of %d bytes", flags, n)
			}
			return
		}
		if n != min(len(data), 1<<16) {
			t.Fatalf("prefix of %d bytes read as %d", len(data), n)
		}
		if connectEndPrefix("application/grpc-web", prefix[:]) != 0 || connectEndPrefix("application/connect+json", prefix[:4]) != 0 {
			t.Fatal("an end prefix outside a Connect stream, or short")
		}
		got := connectEndCode(data)
		var end struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(data, &end) == nil && got != end.Error.Code {
			t.Fatalf("code %q, want %q", got, end.Error.Code)
		}
		if c, ok := codeOfName(got); ok && connectCodeName(c) != got || ok && c == codes.OK {
			t.Fatalf("codeOfName(%q) = %v", got, c)
		}
	})
}
