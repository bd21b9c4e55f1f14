package docsui

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The files under swagger-ui/ are swagger-ui-dist's, at the version and
// tarball integrity that scripts/swaggerui.sh pins: the script wrote
// SHA256SUMS from the tarball it checked, and every file, the manifest's
// header and Version must still agree with it. (bash
// scripts/swaggerui.sh --check downloads the tarball again and compares.)
func TestVendoredSwaggerUI(t *testing.T) {
	t.Parallel()
	script, err := os.ReadFile(filepath.Join("..", "scripts", "swaggerui.sh"))
	if err != nil {
		t.Fatal(err)
	}
	pin := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + name + `=(\S+)$`).FindSubmatch(script)
		if m == nil {
			t.Fatalf("scripts/swaggerui.sh pins no %s", name)
		}
		return string(m[1])
	}
	version, integrity := pin("VERSION"), pin("INTEGRITY")
	if version != Version {
		t.Errorf("docsui.Version is %s, scripts/swaggerui.sh pins %s", Version, version)
	}

	sums, err := os.Open(filepath.Join("swagger-ui", "SHA256SUMS"))
	if err != nil {
		t.Fatalf("%v (run scripts/swaggerui.sh)", err)
	}
	defer sums.Close()
	lines := bufio.NewScanner(sums)
	if !lines.Scan() || lines.Text() != "# swagger-ui-dist "+version+" "+integrity {
		t.Fatalf("swagger-ui/SHA256SUMS is of %q, want swagger-ui-dist %s %s (run scripts/swaggerui.sh)", lines.Text(), version, integrity)
	}
	listed := []string{"SHA256SUMS"}
	for lines.Scan() {
		want, name, ok := strings.Cut(lines.Text(), "  ")
		if !ok {
			t.Fatalf("swagger-ui/SHA256SUMS: bad line %q", lines.Text())
		}
		listed = append(listed, name)
		data, err := os.ReadFile(filepath.Join("swagger-ui", name))
		if err != nil {
			t.Error(err)
			continue
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != want {
			t.Errorf("swagger-ui/%s differs from swagger-ui-dist %s's (run scripts/swaggerui.sh)", name, version)
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("swagger-ui")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !slices.Contains(listed, e.Name()) {
			t.Errorf("swagger-ui/%s is not swagger-ui-dist's (not in SHA256SUMS)", e.Name())
		}
	}
	for _, name := range served {
		if base, ok := strings.CutPrefix(name, "swagger-ui/"); ok && !slices.Contains(listed, base) {
			t.Errorf("the page serves %s, which SHA256SUMS does not list", name)
		}
	}
	for _, license := range []string{"LICENSE", "NOTICE"} {
		if !slices.Contains(listed, license) {
			t.Errorf("swagger-ui/%s is missing: Apache-2.0 asks that it ship with the files", license)
		}
	}
}
