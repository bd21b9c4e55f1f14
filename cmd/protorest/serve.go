package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest"
)

const serveUsage = `Usage: protorest serve --upstream ADDR [flags]

Serves the gRPC services of the upstream server as HTTP/JSON, following
their google.api.http annotations. Descriptors come from the upstream's
server reflection unless --descriptor-set is given.

  protorest serve --upstream localhost:50051
  protorest serve --upstream unix:///run/app.sock --listen :8080
  protorest serve --upstream dns:///app:50051 --descriptor-set app.binpb --service app.v1.App

Flags:
`

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("serve", flag.ContinueOnError)
	fset.SetOutput(stderr)
	upstream := fset.String("upstream", "", "gRPC `address` of the upstream: host:port, dns:///name:port or unix:///path (required)")
	listen := fset.String("listen", ":8080", "HTTP listen `address`")
	descSet := fset.String("descriptor-set", "", "read descriptors from this FileDescriptorSet `file` instead of server reflection")
	var servicesFlag stringList
	fset.Var(&servicesFlag, "service", "serve only this `service` (full name; repeatable)")
	protoNames := fset.Bool("proto-names", false, "write JSON field names as in the .proto (default: lowerCamelCase)")
	omitDefaults := fset.Bool("omit-defaults", false, "leave fields with default values out of JSON responses (default: emit them, as grpc-gateway does)")
	enumNumbers := fset.Bool("enum-numbers", false, "write enums as numbers in JSON responses")
	ignoreUnknown := fset.Bool("ignore-unknown-query", false, "ignore unknown query parameters (default: 400)")
	var ignored stringList
	fset.Var(&ignored, "ignore-query", "always ignore this query `parameter` (repeatable)")
	unescape := fset.String("unescape", "all-except-slash", "decoding of multi-segment path variables: `mode` all-except-slash, all-except-reserved or all")
	timeout := fset.Duration("startup-timeout", 10*time.Second, "how long to wait for the upstream's descriptors")
	fset.Usage = func() {
		fmt.Fprint(fset.Output(), serveUsage)
		fset.PrintDefaults()
	}
	if err := fset.Parse(args); err != nil {
		return err
	}
	if fset.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fset.Arg(0))
	}
	if *upstream == "" {
		return errors.New("--upstream is required")
	}

	opts := []protorest.Option{
		protorest.WithMarshalOptions(protojson.MarshalOptions{UseProtoNames: *protoNames, EmitUnpopulated: !*omitDefaults, UseEnumNumbers: *enumNumbers}),
		protorest.WithIgnoredQueryParameters(ignored...),
	}
	if *ignoreUnknown {
		opts = append(opts, protorest.WithIgnoreUnknownQueryParameters())
	}
	switch *unescape {
	case "all-except-slash":
	case "all-except-reserved":
		opts = append(opts, protorest.WithPathUnescaping(protorest.UnescapeAllExceptReserved))
	case "all":
		opts = append(opts, protorest.WithPathUnescaping(protorest.UnescapeAll))
	default:
		return fmt.Errorf("--unescape %q: want all-except-slash, all-except-reserved or all", *unescape)
	}

	conn, err := grpc.NewClient(*upstream, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("--upstream %q: %w", *upstream, err)
	}
	defer conn.Close()
	source := protorest.WithReflection(servicesFlag...)
	if *descSet != "" {
		source = protorest.WithDescriptorSetFile(*descSet, servicesFlag...)
	}
	gw := protorest.NewGateway(opts...)
	loadCtx, cancel := context.WithTimeout(ctx, *timeout)
	err = gw.RegisterRemote(loadCtx, conn, source)
	cancel()
	if err != nil {
		return err
	}

	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: gw, ReadHeaderTimeout: 10 * time.Second}
	slog.New(slog.NewTextHandler(stderr, nil)).Info("protorest serving", "listen", lis.Addr().String(), "upstream", *upstream)
	fmt.Fprintf(stdout, "protorest: serving %s as HTTP/JSON on %s\n", *upstream, lis.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis) }()
	select {
	case err = <-errc:
	case <-ctx.Done():
		// Drain in-flight requests, then exit.
		shutdown, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err = srv.Shutdown(shutdown)
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
