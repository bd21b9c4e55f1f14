package headers

import (
	"strings"
	"testing"
)

// TestLowerKey: lowerKey is strings.ToLower, without an allocation for
// the common keys.
func TestLowerKey(t *testing.T) {
	for _, key := range []string{"Content-Type", "User-Agent", "X-Custom-Thing", "x-already-lower", "Te", ""} {
		if got, want := lowerKey(key), strings.ToLower(key); got != want {
			t.Errorf("lowerKey(%q) = %q, want %q", key, got, want)
		}
	}
	for key, lower := range commonLowerKeys {
		if lower != strings.ToLower(key) {
			t.Errorf("commonLowerKeys[%q] = %q", key, lower)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = lowerKey("Content-Type") }); n != 0 {
		t.Errorf("lowerKey(\"Content-Type\"): %v allocations, want 0", n)
	}
}
