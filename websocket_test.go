package protorest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

func TestWebSocketBidi(t *testing.T) {
	t.Parallel()
	urls, _ := streamGateways(t)
	for gwName, url := range urls {
		// The rule is a POST; the handshake is a GET on the same path.
		c := wsDial(t, url+"/v1/chat", nil)
		for _, name := range []string{"a", "b"} {
			wsWrite(t, c, websocket.MessageText, `{"name":"`+name+`"}`)
			typ, msg, err := wsRead(t, c)
			if err != nil || typ != websocket.MessageText || msg != `{"name":"re: `+name+`"}` {
				t.Errorf("%s: reply %v %q %v", gwName, typ, msg, err)
			}
		}
		wsWrite(t, c, websocket.MessageText, "") // end of the client's stream
		wsClosed(t, c, websocket.StatusNormalClosure, "")
	}
}

func TestWebSocketBinary(t *testing.T) {
	t.Parallel()
	urls, _ := streamGateways(t)
	for gwName, url := range urls {
		c := wsDial(t, url+"/v1/chat", nil)
		b, _ := proto.Marshal(&confv1.Probe{Name: "bin"})
		wsWrite(t, c, websocket.MessageBinary, string(b))
		typ, msg, err := wsRead(t, c)
		var p confv1.Probe
		if err != nil || typ != websocket.MessageBinary || proto.Unmarshal([]byte(msg), &p) != nil || p.GetName() != "re: bin" {
			t.Errorf("%s: binary reply %v %q %v", gwName, typ, msg, err)
		}
	}
}

func TestWebSocketServerStream(t *testing.T) {
	t.Parallel()
	urls, _ := streamGateways(t)
	for gwName, url := range urls {
		c := wsDial(t, url+"/v1/watch/w?i32=3", nil)
		for i := 1; i <= 3; i++ {
			_, msg, err := wsRead(t, c)
			var p confv1.Probe
			if err != nil || protojson.Unmarshal([]byte(msg), &p) != nil || p.GetI32() != int32(i) {
				t.Errorf("%s: message %d: %q %v", gwName, i, msg, err)
			}
		}
		wsClosed(t, c, websocket.StatusNormalClosure, "")

		c = wsDial(t, url+"/v1/watch/fail-after?i32=1", nil)
		if _, msg, err := wsRead(t, c); err != nil || !strings.Contains(msg, "fail-after-1") {
			t.Errorf("%s: %q %v", gwName, msg, err)
		}
		wsClosed(t, c, 4000+13, "it broke")

		c = wsDial(t, url+"/v1/watch/fail-before", nil)
		wsClosed(t, c, 4000+5, "no such watch")
	}
}

func TestWebSocketClientStream(t *testing.T) {
	t.Parallel()
	urls, _ := streamGateways(t)
	for gwName, url := range urls {
		c := wsDial(t, url+"/v1/bulk", nil)
		wsWrite(t, c, websocket.MessageText, `{"name":"x"}`)
		wsWrite(t, c, websocket.MessageText, `{"name":"y"}`)
		wsWrite(t, c, websocket.MessageText, "")
		if _, msg, err := wsRead(t, c); err != nil || msg != `{"name":"x,y","i32":2}` {
			t.Errorf("%s: response %q %v", gwName, msg, err)
		}
		wsClosed(t, c, websocket.StatusNormalClosure, "")

		c = wsDial(t, url+"/v1/bulk", nil)
		wsWrite(t, c, websocket.MessageText, `{"name":5}`)
		_, _, err := wsRead(t, c)
		if websocket.CloseStatus(err) != 4000+3 {
			t.Errorf("%s: a bad message: %v", gwName, err)
		}
	}
}

func TestWebSocketClientCloseCancels(t *testing.T) {
	t.Parallel()
	urls, streamers := streamGateways(t)
	for gwName, url := range urls {
		c := wsDial(t, url+"/v1/chat", nil)
		wsWrite(t, c, websocket.MessageText, `{"name":"hold"}`)
		select {
		case <-streamers[gwName].started:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the chat did not start", gwName)
		}
		c.Close(websocket.StatusNormalClosure, "bye")
		select {
		case <-streamers[gwName].canceled:
		case <-time.After(5 * time.Second):
			t.Errorf("%s: the call was not canceled by the client's close", gwName)
		}
	}
}

func TestWebSocketOrigins(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		opts    []protorest.Option
		origin  string
		allowed bool
	}{
		{"same origin", nil, "", true},
		{"another origin", nil, "https://evil.example", false},
		{"an allowed origin", []protorest.Option{protorest.WithWebSocketOrigins("app.example")}, "https://app.example", true},
	} {
		gw := protorest.NewGateway(tt.opts...)
		confv1.RegisterProbesServer(gw, newStreamer())
		srv := httptest.NewServer(gw)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		h := http.Header{}
		if tt.origin != "" {
			h.Set("Origin", tt.origin)
		}
		c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/v1/watch/w", &websocket.DialOptions{HTTPHeader: h})
		cancel()
		if (err == nil) != tt.allowed {
			t.Errorf("%s: dial err %v", tt.name, err)
		}
		if !tt.allowed && (resp == nil || resp.StatusCode != http.StatusForbidden) {
			t.Errorf("%s: response %v", tt.name, resp)
		}
		if c != nil {
			c.CloseNow()
		}
		srv.Close()
	}
}

// A plain GET of a POST streaming route without the upgrade is still 405.
func TestWebSocketOnlyWithUpgrade(t *testing.T) {
	t.Parallel()
	gw := protorest.NewGateway()
	confv1.RegisterProbesServer(gw, newStreamer())
	if r := do(t, gw, "GET", "/v1/chat", ""); r.code != 405 {
		t.Errorf("GET without an upgrade: %d", r.code)
	}
}

// TestWebSocketHalfCloseThenClose: a server stream's client that
// half-closes (an empty message) and then closes still cancels the call
// (the reader used to spin on its end of stream, never seeing the close).
func TestWebSocketHalfCloseThenClose(t *testing.T) {
	t.Parallel()
	urls, streamers := streamGateways(t)
	for gwName, url := range urls {
		c := wsDial(t, url+"/v1/watch/w?flag=true", nil)
		select {
		case <-streamers[gwName].started:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the watch did not start", gwName)
		}
		wsWrite(t, c, websocket.MessageText, "")
		time.Sleep(50 * time.Millisecond)
		c.Close(websocket.StatusNormalClosure, "bye")
		select {
		case <-streamers[gwName].canceled:
		case <-time.After(5 * time.Second):
			t.Errorf("%s: the call was not canceled by the client's close after a half-close", gwName)
		}
	}
}
