package remote

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/protorest/protorest/internal/httperr"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestUnreachable: grpc-go's errors for a backend it cannot reach (the
// messages seen from grpc-go v1.85 against a closed port, a name that
// does not resolve, a missing socket, and those of internal/transport for
// a connection that breaks) become "upstream unavailable", with the cause
// in the error's text; the backend's own UNAVAILABLE, and every other
// error, stay as they are.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	unavailable := func(msg string) error { return status.Error(codes.Unavailable, msg) }
	for _, tt := range []struct {
		name        string
		err         error
		opened      bool
		unreachable bool
	}{
		{"refused", unavailable(`connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused"`), false, true},
		{"refused, pick first", unavailable(`last connection error: connection error: desc = "transport: Error while dialing: dial tcp 10.0.0.1:50051: i/o timeout"`), false, true},
		{"no address", unavailable("name resolver error: produced zero addresses"), false, true},
		{"no address, round robin", unavailable("no children to pick from"), false, true},
		{"bad target", unavailable(`delegating_resolver: invalid target address "localhost:": missing port after port-separator colon`), false, true},
		{"any message before a stream", unavailable("circuit open"), false, true},
		{"wait for ready, deadline", status.Error(codes.DeadlineExceeded, `latest balancer error: connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused"`), false, true},
		{"broken mid-call", unavailable(`connection error: desc = "error reading from server: read tcp 127.0.0.1:5->127.0.0.1:6: read: connection reset by peer"`), true, true},
		{"goaway", unavailable(`closing transport due to: connection error: desc = "error reading from server: EOF", received prior goaway: code: NO_ERROR, debug data: "graceful_stop"`), true, true},
		{"broken mid-call, its description", unavailable("error reading from server: EOF"), true, true},
		{"keepalive", unavailable("keepalive ping failed to receive ACK within timeout"), true, true},
		{"transport closing", unavailable("transport is closing"), true, true},
		{"draining", unavailable("the connection is draining"), true, true},
		{"refused by goaway", unavailable("the stream is rejected because server is draining the connection"), true, true},
		{"client closing", unavailable("grpc: the connection is closing"), true, true},
		{"the backend's own", unavailable("database down"), true, false},
		{"no stream to spare (connpool)", httperr.Busy("every connection is at its limit"), false, false},
		{"the backend's own, behind a proxy", unavailable(`unexpected HTTP status code received from server: 503 (Service Unavailable); transport: received unexpected content-type "text/html"`), true, false},
		{"deadline", status.Error(codes.DeadlineExceeded, "context deadline exceeded"), false, false},
		{"deadline while connecting", status.Error(codes.DeadlineExceeded, "context deadline exceeded while waiting for connections to become ready"), false, false},
		{"another code", status.Error(codes.Internal, `connection error: desc = "x"`), false, false},
		{"not a status", errors.New("connection error: desc = x"), false, false},
		{"end of stream", io.EOF, true, false},
		{"none", nil, true, false},
	} {
		got := Unreachable(tt.err, tt.opened)
		if !tt.unreachable {
			if got != tt.err {
				t.Errorf("%s: %v, want it unchanged", tt.name, got)
			}
			continue
		}
		st := status.Convert(got)
		if !errors.Is(got, ErrUnreachable) || st.Code() != codes.Unavailable || st.Message() != "upstream unavailable" || !errors.Is(got, tt.err) {
			t.Errorf("%s: %v (status %v), want UNAVAILABLE upstream unavailable wrapping the cause", tt.name, got, st)
		}
		if want := "upstream unavailable: " + status.Convert(tt.err).Message(); got.Error() != want {
			t.Errorf("%s: text %q, want %q", tt.name, got.Error(), want)
		}
		if strings.Contains(st.Message(), "127.0.0.1") {
			t.Errorf("%s: the status names an address: %v", tt.name, st)
		}
	}
}
