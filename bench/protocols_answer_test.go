package bench

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// checkProtocolAnswer decodes w's answer to a call of protocol ("connect-json",
// "connect-proto" or "grpc-web"; stream for a streaming call) as the
// protocol's client would, and fails b unless the call succeeded with
// exactly the messages want, in order.
func checkProtocolAnswer(b *testing.B, protocol string, stream bool, w *httptest.ResponseRecorder, want []proto.Message) {
	b.Helper()
	if w.Code != 200 {
		b.Fatalf("status %d: %.300q", w.Code, w.Body)
	}
	var msgs [][]byte
	switch {
	case protocol == "grpc-web":
		msgs = webMessages(b, w)
	case stream:
		msgs = connectStreamMessages(b, w.Body.Bytes())
	default:
		msgs = [][]byte{w.Body.Bytes()}
	}
	if len(msgs) != len(want) {
		b.Fatalf("%d messages, want %d", len(msgs), len(want))
	}
	for i, data := range msgs {
		got := want[i].ProtoReflect().New().Interface()
		var err error
		if strings.HasSuffix(protocol, "json") {
			err = protojson.Unmarshal(data, got)
		} else {
			err = proto.Unmarshal(data, got)
		}
		if err != nil {
			b.Fatalf("message %d: %v: %.300q", i, err, data)
		}
		if !proto.Equal(got, want[i]) {
			b.Fatalf("message %d is %v, want %v", i, got, want[i])
		}
	}
}

// frames splits body into its 5-byte-prefixed frames, failing b on a
// truncated one.
func frames(b *testing.B, body []byte) (flags []byte, data [][]byte) {
	b.Helper()
	for len(body) > 0 {
		if len(body) < 5 {
			b.Fatalf("truncated frame prefix: %q", body)
		}
		n := binary.BigEndian.Uint32(body[1:5])
		if uint64(len(body)-5) < uint64(n) {
			b.Fatalf("frame of %d bytes, %d left", n, len(body)-5)
		}
		flags, data = append(flags, body[0]), append(data, body[5:5+n])
		body = body[5+n:]
	}
	return flags, data
}

// webMessages returns the messages of a gRPC-Web answer, whose status
// must be OK, in its trailer frame (the last) or, with no message, its
// headers.
func webMessages(b *testing.B, w *httptest.ResponseRecorder) [][]byte {
	b.Helper()
	flags, data := frames(b, w.Body.Bytes())
	status := w.Header().Get("Grpc-Status")
	var msgs [][]byte
	for i, f := range flags {
		switch {
		case f&0x80 == 0:
			msgs = append(msgs, data[i])
		case i != len(flags)-1:
			b.Fatalf("trailer frame %d of %d", i, len(flags))
		default:
			for line := range strings.SplitSeq(string(data[i]), "\r\n") {
				if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "grpc-status") {
					status = strings.TrimSpace(v)
				}
			}
		}
	}
	if status != "0" {
		b.Fatalf("grpc-status %q: %.300q", status, w.Body)
	}
	return msgs
}

// connectStreamMessages returns the messages of a Connect stream, whose
// end-of-stream message (flag 0x02, the last) must carry no error.
func connectStreamMessages(b *testing.B, body []byte) [][]byte {
	b.Helper()
	flags, data := frames(b, body)
	if len(flags) == 0 || flags[len(flags)-1]&0x02 == 0 {
		b.Fatalf("no end-of-stream message: %.300q", body)
	}
	var end struct {
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data[len(data)-1], &end); err != nil || len(bytes.TrimSpace(end.Error)) > 0 {
		b.Fatalf("end of stream %q (%v)", data[len(data)-1], err)
	}
	for _, f := range flags[:len(flags)-1] {
		if f != 0 {
			b.Fatalf("message flags %#x", f)
		}
	}
	return data[:len(data)-1]
}
