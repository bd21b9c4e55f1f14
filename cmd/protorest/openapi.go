package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/protorest/protorest"
	"github.com/protorest/protorest/internal/openapi"
)

// mountOpenAPI serves the gateway's OpenAPI document at prefix.json and
// prefix.yaml, routes that the document lists too.
func mountOpenAPI(gw *protorest.Gateway, prefix string) error {
	for _, f := range []struct {
		ext    string
		format protorest.OpenAPIFormat
	}{{".json", protorest.OpenAPIJSON}, {".yaml", protorest.OpenAPIYAML}} {
		doc := protorest.RouteDoc{Summary: "This API's OpenAPI 3.1 document, as " + f.ext[1:] + "."}
		if err := gw.HandleDocumentedPath("GET", prefix+f.ext, gw.OpenAPIHandler(f.format).ServeHTTP, doc); err != nil {
			return err
		}
	}
	return nil
}

const openapiIntro = `Usage: protorest openapi (--proto FILE... [--import-path DIR]... | --descriptor-set FILE) [flags]

Write the OpenAPI 3.1 document of the routes that protorest serve would
serve for these descriptors, without an upstream: the same paths,
parameters, schemas and statuses, per the same JSON and routing flags.
Comments in --proto files become summaries and descriptions.

Examples:

  protorest openapi --import-path proto --proto app/v1/app.proto > openapi.json
  protorest openapi --descriptor-set app.binpb --format yaml --output openapi.yaml
`

// openapiFlagNames are the flags of serve that openapi shares: those that
// change what is served, not how.
var openapiFlagNames = []string{
	"descriptor-set", "proto", "import-path", "service", "auto-map",
	"proto-names", "omit-defaults", "enum-numbers", "ignore-unknown-query", "ignore-query", "success-status",
	"openapi-title", "openapi-version",
}

// openapiFlags is openapi's flag table: serve's shared flags, then its own.
func openapiFlags(c *serveConfig, output, format *string) []flagSpec {
	var specs []flagSpec
	for _, f := range serveFlags(c) {
		for _, name := range openapiFlagNames {
			if f.name == name {
				f.group = "Descriptors and routes"
				specs = append(specs, f)
			}
		}
	}
	return append(specs,
		flagSpec{group: "Output", name: "output", arg: "FILE", value: stringValue{output}, def: "standard output",
			help: "write the document to FILE"},
		flagSpec{group: "Output", name: "format", arg: "FORMAT", value: choiceValue{format, []string{"json", "yaml"}},
			help: "json or yaml"},
	)
}

func runOpenAPI(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, output, format, err := parseOpenAPIFlags(args, stdout)
	if err != nil {
		return withUnknownVariables(err, os.Environ())
	}
	printUnknownVariables(stderr, "openapi", os.Environ())
	gw := protorest.NewGateway(c.gatewayOptions()...)
	source, _, _ := c.source()
	// No call is made: the connection is never used.
	if err := gw.RegisterRemote(ctx, nil, source); err != nil {
		return err
	}
	doc := gw.OpenAPI()
	if format == "yaml" {
		doc = openapi.YAML(doc)
	} else {
		var indented bytes.Buffer
		json.Indent(&indented, doc, "", "  ") // the gateway's JSON is valid
		doc = append(indented.Bytes(), '\n')
	}
	if output == "" {
		_, err := stdout.Write(doc)
		return err
	}
	if err := os.WriteFile(output, doc, 0o644); err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	return nil
}

// parseOpenAPIFlags parses openapi's command line and environment into a
// config, the output file and the format. Every mistake is a usageError.
func parseOpenAPIFlags(args []string, stdout io.Writer) (c *serveConfig, output, format string, err error) {
	c, format = newServeConfig(), "json"
	specs := openapiFlags(c, &output, &format)
	fset := flag.NewFlagSet("openapi", flag.ContinueOnError)
	if err := parseCommandLine(fset, specs, args, openapiIntro+flagHelp(specs), os.LookupEnv, stdout); err != nil {
		return nil, "", "", err
	}
	if c.descriptorSet == "" && len(c.protos) == 0 {
		return nil, "", "", usagef("give --proto or --descriptor-set (see protorest openapi --help)")
	}
	if err := c.checkRoutes(); err != nil {
		return nil, "", "", usageError{err}
	}
	return c, output, format, nil
}
