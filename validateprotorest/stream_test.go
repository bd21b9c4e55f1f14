package validateprotorest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestClientStream checks every message of a client stream: a JSON body
// of several messages whose second breaks a rule is answered 400 with the
// violation, and the method never receives that message; a valid stream
// reaches it whole.
func TestClientStream(t *testing.T) {
	for _, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			url, svc := s.start(t)
			code, body := call(t, "POST", url+"/v1/uploads", "application/json", `{"id":"ab","title":"abc"} {"id":"cd","title":"def"}`)
			if code != http.StatusOK || string(body) != `{"messages":2}` {
				t.Fatalf("valid stream: %d %s", code, body)
			}
			before := svc.received.Load()
			code, body = call(t, "POST", url+"/v1/uploads", "application/json", `{"id":"ab","title":"abc"} {"id":"c","title":"def"} {"id":"ef","title":"ghi"}`)
			if code != http.StatusBadRequest {
				t.Fatalf("got %d, want 400: %s", code, body)
			}
			st, got, hasViolations := badRequest(t, body)
			if len(got) != 1 || got[0] != "id STRING_MIN_LEN" || !hasViolations {
				t.Errorf("violations %q (buf.validate.Violations: %v): %s", got, hasViolations, body)
			}
			if !strings.HasPrefix(st.Message, "message 2 of the request stream: invalid request: id: ") {
				t.Errorf("message %q", st.Message)
			}
			if n := svc.received.Load() - before; n > 1 {
				t.Errorf("the method received %d messages, want at most the first", n)
			}
		})
	}
}

// TestWebSocketStream checks the messages of a client stream over a
// WebSocket: one that breaks a rule ends the call with close code 4003
// (4000 + INVALID_ARGUMENT) and the violation as the reason.
func TestWebSocketStream(t *testing.T) {
	for _, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			url, svc := s.start(t)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/v1/uploads", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseNow()
			before := svc.received.Load()
			for _, msg := range []string{`{"id":"ab","title":"abc"}`, `{"id":"cd","title":"x"}`} {
				if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
					t.Fatal(err)
				}
			}
			_, msg, err := c.Read(ctx)
			var ce websocket.CloseError
			if !asClose(err, &ce) || ce.Code != 4003 || !strings.Contains(ce.Reason, "title") {
				t.Fatalf("want close 4003 naming title, got message %q, err %v", msg, err)
			}
			if n := svc.received.Load() - before; n > 1 {
				t.Errorf("the method received %d messages, want at most the first", n)
			}
		})
	}
}

func asClose(err error, ce *websocket.CloseError) bool { return errors.As(err, ce) }
