package route

import (
	"errors"
	"testing"
)

func TestUnescapeSegment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		err            string // the EscapeError's Escape, "" for none
	}{
		{"C047 slash", "a%2Fb", "a/b", ""},
		{"lower-case hex", "a%2fb", "a/b", ""},
		{"C049 space", "a%20b", "a b", ""},
		{"R24 plus stays", "a%2Fb+c%20d", "a/b+c d", ""},
		{"C051 UTF-8", "%E4%BD%A0", "你", ""},
		{"C053 percent", "%25", "%", ""},
		{"no double decoding", "%252F", "%2F", ""},
		{"reserved decoded", "%3A%3F%40%21", ":?@!", ""},
		{"invalid UTF-8 passes", "%FF", "\xff", ""},
		{"plain", "abc:def", "abc:def", ""},
		{"empty", "", "", ""},
		{"bad hex", "a%zzb", "", "%zz"},
		{"one bad digit", "%2g", "", "%2g"},
		{"trailing percent", "abc%", "", "%"},
		{"truncated", "abc%2", "", "%2"},
		{"bad after good", "%41%4", "", "%4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := UnescapeSegment(tc.in)
			checkUnescape(t, tc.in, got, err, tc.want, tc.err)
		})
	}
}

func checkUnescape(t *testing.T, in, got string, err error, want, wantEsc string) {
	t.Helper()
	if wantEsc == "" {
		if err != nil || got != want {
			t.Errorf("unescape(%q) = %q, %v, want %q", in, got, err, want)
		}
		return
	}
	var ee *EscapeError
	if !errors.As(err, &ee) || !errors.Is(err, ErrMalformedEscape) {
		t.Fatalf("unescape(%q) = %q, %v, want an *EscapeError", in, got, err)
	}
	if ee.Escape != wantEsc || in[ee.Offset:ee.Offset+len(ee.Escape)] != ee.Escape {
		t.Errorf("unescape(%q): Escape %q at %d, want %q", in, ee.Escape, ee.Offset, wantEsc)
	}
}

func TestUnescapeMulti(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		mode UnescapeMode
		want string
		err  string
	}{
		{"C059 default keeps %2F", "a%2Fb/c", UnescapeAllExceptSlash, "a%2Fb/c", ""},
		{"C059 all", "a%2Fb/c", UnescapeAll, "a/b/c", ""},
		{"C059 reserved", "a%2Fb/c", UnescapeAllExceptReserved, "a%2Fb/c", ""},
		{"C061 except slash", "a%2Fb/c%3Fd%2B%20e", UnescapeAllExceptSlash, "a%2Fb/c?d+ e", ""},
		{"R25 reserved", "a%2Fb/c%3Fd%20e", UnescapeAllExceptReserved, "a%2Fb/c%3Fd e", ""},
		{"R25 except slash", "a%2Fb/c%3Fd%20e", UnescapeAllExceptSlash, "a%2Fb/c?d e", ""},
		{"R25 all", "a%2Fb/c%3Fd%20e", UnescapeAll, "a/b/c?d e", ""},
		{"kept escape keeps its case", "a%2fb", UnescapeAllExceptSlash, "a%2fb", ""},
		{"every reserved character is kept", "%21%23%24%26%27%28%29%2A%2B%2C%2F%3A%3B%3D%3F%40%5B%5D", UnescapeAllExceptReserved, "%21%23%24%26%27%28%29%2A%2B%2C%2F%3A%3B%3D%3F%40%5B%5D", ""},
		{"unreserved decoded in reserved mode", "%41%7E%2D%25", UnescapeAllExceptReserved, "A~-%", ""},
		{"percent decoded, not re-read", "%252F", UnescapeAllExceptSlash, "%2F", ""},
		{"unknown mode is except slash", "%2F%20", UnescapeMode(42), "%2F ", ""},
		{"plus stays", "a+b", UnescapeAll, "a+b", ""},
		{"malformed", "a/b%", UnescapeAllExceptSlash, "", "%"},
		{"malformed even when kept", "%2F/%G0", UnescapeAllExceptReserved, "", "%G0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := UnescapeMulti(tc.in, tc.mode)
			checkUnescape(t, tc.in, got, err, tc.want, tc.err)
		})
	}
}

// TestConformanceDecoding matches the C047–C061 requests on Fixture A and
// decodes their variables as the gateway does.
func TestConformanceDecoding(t *testing.T) {
	t.Parallel()
	tree := newTree(t, false, fixtureA)
	tests := []struct {
		id, path string
		mode     UnescapeMode
		want     string
	}{
		{"C047", "/v1/probes/a%2Fb", UnescapeAllExceptSlash, "a/b"},
		{"C049", "/v1/probes/a%20b", UnescapeAllExceptSlash, "a b"},
		{"C051", "/v1/probes/%E4%BD%A0", UnescapeAllExceptSlash, "你"},
		{"C053", "/v1/probes/%25", UnescapeAllExceptSlash, "%"},
		{"C057", "/v1/files/a/b/c", UnescapeAllExceptSlash, "a/b/c"},
		{"C059", "/v1/files/a%2Fb/c", UnescapeAllExceptSlash, "a%2Fb/c"},
		{"C059 ALL_CHARACTERS", "/v1/files/a%2Fb/c", UnescapeAll, "a/b/c"},
		{"C059 REF", "/v1/files/a%2Fb/c", UnescapeAllExceptReserved, "a%2Fb/c"},
		{"C061", "/v1/files/a%2Fb/c%3Fd%2B%20e", UnescapeAllExceptSlash, "a%2Fb/c?d+ e"},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			t.Parallel()
			var m Match[string]
			if !tree.Match("GET", tc.path, &m) {
				t.Fatalf("Match(GET %s) failed", tc.path)
			}
			raw := m.RawVar(0)
			var got string
			var err error
			if v := m.Entry.Template.Variables[0]; v.End-v.Start > 1 || m.Entry.Template.DeepIndex() >= 0 {
				got, err = UnescapeMulti(raw, tc.mode)
			} else {
				got, err = UnescapeSegment(raw)
			}
			if err != nil || got != tc.want {
				t.Errorf("%s: %q decoded to %q, %v; want %q", tc.path, raw, got, err, tc.want)
			}
		})
	}
}

func TestUnescapeNoAlloc(t *testing.T) {
	for _, tc := range []struct {
		in   string
		mode UnescapeMode
	}{
		{"plain-segment", UnescapeAll},
		{"a%2Fb/c", UnescapeAllExceptSlash},
		{"a%2Fb/c%3A", UnescapeAllExceptReserved},
	} {
		allocs := testing.AllocsPerRun(100, func() {
			if s, _ := UnescapeMulti(tc.in, tc.mode); s != tc.in {
				t.Fatalf("UnescapeMulti(%q) = %q", tc.in, s)
			}
			if tc.mode == UnescapeAll {
				_, _ = UnescapeSegment(tc.in)
			}
		})
		if allocs != 0 {
			t.Errorf("%q, %v: %v allocs, want 0", tc.in, tc.mode, allocs)
		}
	}
	// Decoding allocates the result only.
	if allocs := testing.AllocsPerRun(100, func() { _, _ = UnescapeSegment("a%20b") }); allocs != 1 {
		t.Errorf("UnescapeSegment with an escape: %v allocs, want 1", allocs)
	}
}

func TestUnescapeModeString(t *testing.T) {
	t.Parallel()
	for m, want := range map[UnescapeMode]string{
		UnescapeAllExceptSlash:    "AllExceptSlash",
		UnescapeAllExceptReserved: "AllExceptReserved",
		UnescapeAll:               "All",
		7:                         "UnescapeMode(7)",
	} {
		if got := m.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(m), got, want)
		}
	}
}
