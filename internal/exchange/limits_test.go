package exchange

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/httperr"
)

func TestAdmit(t *testing.T) {
	t.Parallel()
	env := &Env{MaxURLBytes: 20, MaxHeaders: 3, MaxQueryParams: 2}
	tests := []struct {
		name    string
		target  string
		headers int // header lines besides Host
		env     *Env
		http    int // 0: admitted
		msg     string
	}{
		{"within every limit", "/v1/a?x=1&y=2", 3, env, 0, ""},
		{"target at the limit", "/v1/aaaaaaaaaaaaaaaa", 0, env, 0, ""}, // 20 bytes
		{"target over it", "/v1/aaaaaaaaaaaaaaaaa", 0, env, 414, "request URL longer than the limit of 20 bytes"},
		{"the query counts, with its '?'", "/v1/aaaaaaaaaaaaa?x=1", 0, env, 414, ""},
		{"an empty query counts its '?'", "/v1/aaaaaaaaaaaaaaa?", 0, env, 0, ""},
		{"escapes count as sent", "/v1/a%20b%20c%20d%20e", 0, env, 414, ""},        // 21 bytes, 13 decoded
		{"an encoded slash counts as sent", "/v1/a%2Fb%2Fc%2Fd%2F", 0, env, 0, ""}, // 20 bytes
		{"header lines over the limit", "/v1/a", 4, env, 431, "more request headers than the limit of 3"},
		{"query parameters over the limit", "/v1/a?x&y&z", 0, env, 400, "more query parameters than the limit of 2"},
		{"no limits", "/v1/" + strings.Repeat("a", 100) + "?a&b&c&d", 50, &Env{}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", tt.target, nil)
			for i := range tt.headers {
				r.Header.Add("X-H", string(rune('a'+i)))
			}
			err := tt.env.Admit(r)
			if tt.http == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if got := httperr.Status(err); got != tt.http {
				t.Fatalf("status %d (%v), want %d", got, err, tt.http)
			}
			want := codes.ResourceExhausted
			if tt.http == http.StatusBadRequest {
				want = codes.InvalidArgument
			}
			if status.Code(err) != want {
				t.Errorf("code %v, want %v", status.Code(err), want)
			}
			if tt.msg != "" && status.Convert(err).Message() != tt.msg {
				t.Errorf("message %q, want %q", status.Convert(err).Message(), tt.msg)
			}
		})
	}
}
