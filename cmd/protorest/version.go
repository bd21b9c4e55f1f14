package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

const versionUsage = `Usage: protorest version

Prints what this binary was built from, as the Go toolchain recorded it:
the module version, the VCS revision ("-dirty" when the work tree had
changes) and its commit time, and the Go version. "protorest --version"
prints the same.

The module version is v1.2.3 after "go install ...@v1.2.3", a
pseudo-version (v0.0.0-DATE-REVISION) when built in a git checkout, and
"(devel)" when the toolchain had nothing to go by (go run, or
-buildvcs=false). Fields the build did not record are printed as
"unknown".
`

// runVersion prints the build information of the running binary.
func runVersion(args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := parseFlags(fset, args, versionUsage, stdout); err != nil {
		return err
	}
	bi, _ := debug.ReadBuildInfo() // nil without module support
	_, err := io.WriteString(stdout, versionText(bi))
	return err
}

// versionText formats bi, which may be nil (a binary built without
// module support), as the lines "protorest version" prints.
func versionText(bi *debug.BuildInfo) string {
	const unknown = "unknown"
	version, revision, commitTime := unknown, unknown, unknown
	goVersion := runtime.Version()
	if bi != nil {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		var modified bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				commitTime = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified && revision != unknown {
			revision += "-dirty"
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "protorest %s\n", version)
	fmt.Fprintf(&b, "revision  %s\n", revision)
	fmt.Fprintf(&b, "time      %s\n", commitTime)
	fmt.Fprintf(&b, "go        %s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	return b.String()
}

// moduleVersion is the binary's module version (see versionText), for
// telemetry's service.version.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "unknown"
}
