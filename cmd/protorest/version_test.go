package main

import (
	"context"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionText(t *testing.T) {
	t.Parallel()
	platform := runtime.GOOS + "/" + runtime.GOARCH
	vcs := func(revision, time, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "-trimpath", Value: "true"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: revision},
			{Key: "vcs.time", Value: time},
			{Key: "vcs.modified", Value: modified},
		}
	}
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{{
		name: "go install @tag",
		bi: &debug.BuildInfo{
			GoVersion: "go1.26.0",
			Main:      debug.Module{Path: "github.com/protorest/protorest", Version: "v1.2.3"},
		},
		want: "protorest v1.2.3\nrevision  unknown\ntime      unknown\ngo        go1.26.0 " + platform + "\n",
	}, {
		name: "go build in a clean checkout",
		bi: &debug.BuildInfo{
			GoVersion: "go1.26.8",
			Main:      debug.Module{Path: "github.com/protorest/protorest", Version: "v0.0.0-20260102030405-0123456789ab"},
			Settings:  vcs("0123456789abcdef0123456789abcdef01234567", "2026-01-02T03:04:05Z", "false"),
		},
		want: "protorest v0.0.0-20260102030405-0123456789ab\n" +
			"revision  0123456789abcdef0123456789abcdef01234567\n" +
			"time      2026-01-02T03:04:05Z\n" +
			"go        go1.26.8 " + platform + "\n",
	}, {
		name: "go build with changes",
		bi: &debug.BuildInfo{
			GoVersion: "go1.26.8",
			Main:      debug.Module{Path: "github.com/protorest/protorest", Version: "v0.0.0-20260102030405-0123456789ab+dirty"},
			Settings:  vcs("0123456789abcdef0123456789abcdef01234567", "2026-01-02T03:04:05Z", "true"),
		},
		want: "protorest v0.0.0-20260102030405-0123456789ab+dirty\n" +
			"revision  0123456789abcdef0123456789abcdef01234567-dirty\n" +
			"time      2026-01-02T03:04:05Z\n" +
			"go        go1.26.8 " + platform + "\n",
	}, {
		name: "go run, or -buildvcs=false",
		bi: &debug.BuildInfo{
			GoVersion: "go1.26.8",
			Main:      debug.Module{Path: "github.com/protorest/protorest", Version: "(devel)"},
		},
		want: "protorest (devel)\nrevision  unknown\ntime      unknown\ngo        go1.26.8 " + platform + "\n",
	}, {
		name: "no build information",
		bi:   nil,
		want: "protorest unknown\nrevision  unknown\ntime      unknown\ngo        " + runtime.Version() + " " + platform + "\n",
	}}
	for _, tt := range tests {
		if got := versionText(tt.bi); got != tt.want {
			t.Errorf("%s: versionText =\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}

// TestVersionCommand runs "protorest version" and "protorest --version"
// in this test binary, whose build information the toolchain recorded.
func TestVersionCommand(t *testing.T) {
	t.Parallel()
	var outs []string
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		var stdout, stderr syncBuffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("run(%q) = %d, stderr: %s", args, code, stderr.String())
		}
		out := stdout.String()
		if !strings.HasPrefix(out, "protorest ") || !strings.Contains(out, "\ngo        "+runtime.Version()+" ") {
			t.Errorf("run(%q) printed\n%s\nwant the first line protorest VERSION and the Go version %s", args, out, runtime.Version())
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] || outs[0] != outs[2] {
		t.Errorf("version, --version and -version differ:\n%s\n%s\n%s", outs[0], outs[1], outs[2])
	}

	for _, tt := range []struct {
		args           []string
		ok             bool
		stdout, stderr string
	}{
		{args: []string{"version", "--help"}, ok: true, stdout: "Usage: protorest version"},
		{args: []string{"version", "extra"}, ok: false, stderr: `protorest version: unexpected argument "extra"`},
		{args: []string{"--help"}, ok: true, stdout: "\n\tversion "},
	} {
		var stdout, stderr syncBuffer
		code := run(context.Background(), tt.args, &stdout, &stderr)
		if (code == 0) != tt.ok || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("run(%q) = %d\nstdout: %s\nstderr: %s", tt.args, code, stdout.String(), stderr.String())
		}
	}
}
