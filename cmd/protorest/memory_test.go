package main

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// TestContainerMemoryLimit: the limit is read from cgroup v2's
// memory.max, else v1's file; "max", a v1 limit of about 2^63 and no
// file are none.
func TestContainerMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	v2, v1 := write("memory.max", "268435456\n"), write("memory.limit_in_bytes", "536870912\n")
	none2, none1 := write("max", "max\n"), write("v1none", "9223372036854771712\n")
	missing := filepath.Join(dir, "missing")
	for _, tt := range []struct {
		name  string
		files []string
		want  int64
	}{
		{"v2", []string{v2, v1}, 256 << 20},
		{"v1", []string{missing, v1}, 512 << 20},
		{"v2 max", []string{none2, v1}, 0},
		{"v1 none", []string{missing, none1}, 0},
		{"no file", []string{missing}, 0},
	} {
		if got := containerMemoryLimit(tt.files); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestSetMemoryLimit: --memory-limit sets the runtime's limit to 90% of
// it; GOMEMLIMIT in the environment wins.
func TestSetMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	c, err := parseServeFlags([]string{"--upstream", "localhost:1", "--memory-limit", "200MiB"}, envOf(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if set := c.setMemoryLimit(func(string) (string, bool) { return "", false }); set != 180<<20 || debug.SetMemoryLimit(-1) != 180<<20 {
		t.Errorf("set %d, the runtime's %d; want 180MiB", set, debug.SetMemoryLimit(-1))
	}
	c, err = parseServeFlags([]string{"--upstream", "localhost:1"}, envOf(map[string]string{"PROTOREST_MEMORY_LIMIT": "268435456"}), io.Discard)
	if err != nil || c.memoryLimit != 256<<20 {
		t.Errorf("PROTOREST_MEMORY_LIMIT in bytes, as the downward API gives it: %d, %v", c.memoryLimit, err)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if set := c.setMemoryLimit(func(k string) (string, bool) { return "1GiB", k == "GOMEMLIMIT" }); set != 0 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT: set %d", set)
	}
}
