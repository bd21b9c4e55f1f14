// Command protorest serves gRPC services as HTTP/JSON APIs, following
// their google.api.http annotations.
//
// Usage:
//
//	protorest serve --upstream ADDR [flags]   serve a gRPC server as HTTP/JSON
//	protorest demo [flags]                     run the example services on a gRPC and an HTTP port
//	protorest openapi --proto FILE [flags]     write the OpenAPI 3.1 document of the routes
//	protorest version                          print the version, VCS revision and Go version
//
// Run "protorest COMMAND -help" for a command's flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

const usage = `protorest serves gRPC services as HTTP/JSON APIs, following their
google.api.http annotations, with no generated gateway code.

Usage:

	protorest <command> [flags]

Commands:

	serve   serve the gRPC services of an upstream server as HTTP/JSON
	demo    run the example services: gRPC on :9090, HTTP/JSON on :9091
	openapi write the OpenAPI 3.1 document of .proto files or a descriptor set
	version print the version, VCS revision and Go version (also --version)

Run "protorest <command> --help" for the flags of a command.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	case "demo":
		return exitCode(runDemo(ctx, args[1:], stdout, stderr), "demo", stderr)
	case "openapi":
		return exitCode(runOpenAPI(ctx, args[1:], stdout, stderr), "openapi", stderr)
	case "serve":
		return exitCode(runServe(ctx, args[1:], stdout, stderr), "serve", stderr)
	case "version", "-version", "--version":
		return exitCode(runVersion(args[1:], stdout), "version", stderr)
	}
	fmt.Fprintf(stderr, "protorest: unknown command %q\n\n%s", args[0], usage)
	return 2
}

// exitCode reports err of a command on stderr, in one line, and returns
// the exit status: 2 for bad usage (Go's convention, as go and gofmt
// exit), 1 for a failure at run time.
func exitCode(err error, command string, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	}
	fmt.Fprintf(stderr, "protorest %s: %s\n", command, strings.TrimPrefix(err.Error(), "protorest: "))
	var usage usageError
	if errors.As(err, &usage) {
		return 2
	}
	return 1
}

// usageError is a mistake on the command line or in the environment: an
// unknown flag, a bad value, a missing or contradictory flag.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// usagef returns a usageError.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// parseFlags parses args into fset. --help prints usage on stdout and
// returns flag.ErrHelp; any other mistake is one line of error, pointing
// to --help.
func parseFlags(fset *flag.FlagSet, args []string, usage string, stdout io.Writer) error {
	fset.SetOutput(io.Discard)
	err := fset.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return err
	case err != nil:
		return usagef("%w (see protorest %s --help)", err, fset.Name())
	case fset.NArg() > 0:
		return usagef("unexpected argument %q (see protorest %s --help)", fset.Arg(0), fset.Name())
	}
	return nil
}
