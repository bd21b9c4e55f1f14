package headers

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func TestValidTraceparent(t *testing.T) {
	const ok = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, tt := range []struct {
		v    string
		want bool
	}{
		{ok, true},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", true},
		{"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future", true}, // a later version may add fields
		{"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", true},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-", false}, // version 00 is exactly 55
		{"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x", false},
		{"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
		{"00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01", false},
		{"00-00000000000000000000000000000000-00f067aa0ba902b7-01", false},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g", false},
		{"00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
		{"0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
		{"", false},
	} {
		if got := validTraceparent(tt.v); got != tt.want {
			t.Errorf("validTraceparent(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

func TestValidTracestate(t *testing.T) {
	members := func(n int) string {
		m := make([]string, n)
		for i := range m {
			m[i] = fmt.Sprintf("k%d=v", i)
		}
		return strings.Join(m, ",")
	}
	for _, tt := range []struct {
		v    string
		want bool
	}{
		{"", true},
		{"rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", true},
		{" rojo=1 ,\tcongo=2 ,, ", true},
		{"tenant1@vendor=x", true},
		{"1tenant@vendor=x", true},
		{"a*b/c_d-e=v v", true},
		{members(32), true},
		{members(33), false},
		{"k=" + strings.Repeat("v", 256), true},
		{"k=" + strings.Repeat("v", 257), false},
		{strings.Repeat("a", 256) + "=v", true},
		{strings.Repeat("a", 257) + "=v", false},
		{"a=" + strings.Repeat("v", 250) + ",b=" + strings.Repeat("v", 250) + ",c=x", true},       // 509 characters
		{"a=" + strings.Repeat("v", 250) + ",b=" + strings.Repeat("v", 250) + ",c=xyzwuv", false}, // 514,
		{"Rojo=1", false},
		{"1rojo=1", false},
		{"rojo=1,rojo=2", false},
		{"rojo", false},
		{"rojo=", false},
		{"rojo=a=b", false},
		{"rojo=é", false},
		{"t@=x", false},
		{"@v=x", false},
		{"t@v1234567890123=x", true},
		{"t@v12345678901234=x", false},
	} {
		if got := validTracestate(tt.v); got != tt.want {
			t.Errorf("validTracestate(%.60q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

// The W3C Trace Context's grammar as regular expressions: a reference for
// the fuzz target, written from the specification's ABNF, not from the
// code under test.
var (
	traceparentV00   = regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)
	traceparentLater = regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(-.*)?$`)
	tracestateMember = regexp.MustCompile(`^(?:[a-z][a-z0-9_*/-]{0,255}|[a-z0-9][a-z0-9_*/-]{0,240}@[a-z][a-z0-9_*/-]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$`)
)

// FuzzTraceContext checks validTraceparent and validTracestate against
// the specification's grammar.
func FuzzTraceContext(f *testing.F) {
	for _, s := range []string{
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
		"rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
		"a@b=c, d=e f,,",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tp := s[:min(len(s), 2)] != "ff" && (traceparentV00.MatchString(s) || (!strings.HasPrefix(s, "00") && traceparentLater.MatchString(s))) &&
			strings.Trim(s[3:min(len(s), 35)], "0") != "" && strings.Trim(s[min(len(s), 36):min(len(s), 52)], "0") != ""
		if got := validTraceparent(s); got != tp {
			t.Fatalf("validTraceparent(%q) = %v, want %v", s, got, tp)
		}
		ts := len(s) <= maxTracestateLen
		seen := map[string]bool{}
		for m := range strings.SplitSeq(s, ",") {
			m = strings.Trim(m, " \t")
			if m == "" {
				continue
			}
			key, _, _ := strings.Cut(m, "=")
			if !tracestateMember.MatchString(m) || seen[key] || len(seen) == maxTracestateMembers {
				ts = false
				break
			}
			seen[key] = true
		}
		if got := validTracestate(s); got != ts {
			t.Fatalf("validTracestate(%q) = %v, want %v", s, got, ts)
		}
	})
}

// BenchmarkMetadata builds the metadata of a request: one with a
// browser's headers and a W3C trace context, and one with none (as the
// load generators of the throughput harness send).
func BenchmarkMetadata(b *testing.B) {
	browser := httptest.NewRequest("GET", "http://api.example/v1/shelves/1", nil)
	for k, v := range map[string]string{
		"Accept": "application/json", "Accept-Language": "en-US,en;q=0.9", "Authorization": "Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2ln",
		"Cookie": "session=0123456789abcdef", "User-Agent": "Mozilla/5.0", "Grpc-Metadata-X-Request-Id": "7f1c0e8a",
		"Traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "Tracestate": "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
	} {
		browser.Header.Set(k, v)
	}
	bare := httptest.NewRequest("GET", "http://api.example/v1/shelves/1", nil)
	p := &Policy{MaxMetadataBytes: 8 << 10}
	for _, c := range []struct {
		name string
		r    *http.Request
	}{{"browser", browser}, {"bare", bare}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Metadata(c.r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
