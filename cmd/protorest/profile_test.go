package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestServeProfiles: PROTOREST_CPUPROFILE and PROTOREST_MEMPROFILE make
// serve write its profiles as it exits on SIGTERM, in pprof's format
// (gzipped protobuf), and are not warned of as unknown variables.
func TestServeProfiles(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	upstreamAt(t, addr, false)
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	url, cmd, stderr := startServeProcess(t, []string{cpuProfileVariable + "=" + cpu, memProfileVariable + "=" + mem}, "--upstream", addr)
	for range 50 {
		res, err := http.Post(url+"/api/v1/example/upper", "application/json", strings.NewReader(`{"msg":"x"}`))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve: %v: %s", err, stderr.String())
	}
	for _, path := range []string{cpu, mem} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) || len(b) < 100 {
			t.Errorf("%s: %d bytes, not a gzipped profile", path, len(b))
		}
	}
	if strings.Contains(stderr.String(), "not a protorest variable") {
		t.Errorf("the profile variables are warned of: %s", stderr.String())
	}
}
