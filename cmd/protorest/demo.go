package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/bufbuild/protocompile"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest"
	"github.com/protorest/protorest/examples"
	bookstorev1 "github.com/protorest/protorest/examples/bookstore/v1"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	"github.com/protorest/protorest/examples/services"
	"github.com/protorest/protorest/validateprotorest"
	validateexample "github.com/protorest/protorest/validateprotorest/example"
	accountsv1 "github.com/protorest/protorest/validateprotorest/example/accounts/v1"
)

//go:embed ui
var uiFiles embed.FS

const demoUsage = `Usage: protorest demo [--grpc ADDR] [--http ADDR] [--cors-origin ORIGIN]...

Run the example services (example.v1.MySvc, bookstore.v1.BookService,
library.v1.LibraryService, and accounts.v1.AccountService, whose requests
carry protovalidate rules) on a gRPC port, with server reflection and
health, and serve them as HTTP/JSON on another port, requests checked
against their rules (a request that breaks one gets 400 and never
reaches the service), and in Connect, gRPC-Web and gRPC, with server
reflection, on that port too, with two custom
routes: GET /files/{id} and a static page under /ui/, their OpenAPI
document at /openapi.json and /openapi.yaml, and its documentation page,
with Try-it, at /docs/.

Flags:
  --grpc ADDR            gRPC listen address (default :9090)
  --http ADDR            HTTP/JSON listen address (default :9091)
  --cors-origin ORIGIN   let pages from ORIGIN (scheme://host[:port], "*" for
                         any host part) call the API from a browser
                         (repeatable; default none: same origin only)
`

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("demo", flag.ContinueOnError)
	grpcAddr := fset.String("grpc", ":9090", "")
	httpAddr := fset.String("http", ":9091", "")
	var corsOrigins []string
	fset.Func("cors-origin", "", func(v string) error { corsOrigins = append(corsOrigins, v); return nil })
	if err := parseFlags(fset, args, demoUsage, stdout); err != nil {
		return err
	}

	var opts []protorest.Option
	if len(corsOrigins) > 0 {
		cors, err := corsOption(corsOrigins, false)
		if err != nil {
			return usageError{err}
		}
		opts = append(opts, cors)
	}
	gw, err := newDemoGateway(opts...)
	if err != nil {
		return err
	}
	srv := grpc.NewServer()
	examplev1.RegisterMySvcServer(srv, services.NewMySvc())
	bookstorev1.RegisterBookServiceServer(srv, services.NewBookService())
	libraryv1.RegisterLibraryServiceServer(srv, services.NewLibrary())
	accountsv1.RegisterAccountServiceServer(srv, validateexample.NewAccounts())
	reflection.Register(srv)
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)

	gl, err := listen("grpc", *grpcAddr)
	if err != nil {
		return err
	}
	hl, err := listen("http", *httpAddr)
	if err != nil {
		gl.Close()
		return err
	}
	hsrv := protorest.NewServer("", gw) // h2c: full-duplex streams without TLS
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(gl) }()
	go func() { errc <- hsrv.Serve(hl) }()
	printDemoHelp(stdout, gl.Addr(), hl.Addr())

	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hsrv.Shutdown(shutdown)
	srv.GracefulStop()
	if errors.Is(err, http.ErrServerClosed) || errors.Is(err, grpc.ErrServerStopped) {
		err = nil
	}
	return err
}

// newDemoGateway is the demo's gateway: the example services in-process
// (their own instances, not the gRPC port's), with their protovalidate
// rules checked, gRPC server reflection for gRPC clients of its port, the
// custom routes and the OpenAPI document and the docs page.
func newDemoGateway(opts ...protorest.Option) (*protorest.Gateway, error) {
	comments, err := demoComments()
	if err != nil {
		return nil, err
	}
	opts = append([]protorest.Option{
		protorest.WithSuccessStatus("library.v1.LibraryService/CreateBook", http.StatusCreated),
		protorest.WithOpenAPIComments(comments...),
		protorest.WithValidation(validateprotorest.New()),
	}, opts...)
	gw := protorest.NewGateway(opts...)
	examplev1.RegisterMySvcServer(gw, services.NewMySvc())
	bookstorev1.RegisterBookServiceServer(gw, services.NewBookService())
	libraryv1.RegisterLibraryServiceServer(gw, services.NewLibrary())
	accountsv1.RegisterAccountServiceServer(gw, validateexample.NewAccounts())
	reflection.Register(gw) // grpcurl on the HTTP port, whose gRPC is the gateway's
	if err := addDemoRoutes(gw); err != nil {
		return nil, err
	}
	if err := mountOpenAPI(gw, "/openapi"); err != nil {
		return nil, err
	}
	return gw, mountDocs(gw, "/docs/", "/openapi.json")
}

// demoComments compiles the example services' .proto files, embedded,
// for their comments: the OpenAPI document's summaries and descriptions
// (the generated Go code the services run keeps none). Their imports,
// google/api's and buf/validate's, resolve to the files linked in.
func demoComments() ([]protoreflect.FileDescriptor, error) {
	compiler := protocompile.Compiler{
		SourceInfoMode: protocompile.SourceInfoStandard,
		Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
			&protocompile.SourceResolver{Accessor: func(path string) (io.ReadCloser, error) { return examples.Protos.Open(path) }},
			&protocompile.SourceResolver{Accessor: func(path string) (io.ReadCloser, error) { return validateexample.Protos.Open(path) }},
			protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
				fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
				return protocompile.SearchResult{Desc: fd}, err
			}),
		}),
	}
	compiled, err := compiler.Compile(context.Background(), "library/v1/library.proto", "bookstore/v1/bookstore.proto", "example/v1/example.proto",
		"accounts/v1/accounts.proto")
	if err != nil {
		return nil, fmt.Errorf("the examples' .proto files: %w", err)
	}
	files := make([]protoreflect.FileDescriptor, len(compiled))
	for i, f := range compiled {
		files[i] = f
	}
	return files, nil
}

// addDemoRoutes adds the custom routes: a file lookup and a static page.
func addDemoRoutes(gw *protorest.Gateway) error {
	if err := gw.HandleDocumentedPath("GET", "/files/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "file %q\n", r.PathValue("id"))
	}, protorest.RouteDoc{Summary: "A custom route: the file's name, as text."}); err != nil {
		return err
	}
	ui, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		return err
	}
	return gw.HandleDocumentedPath("GET", "/ui/{path=**}", func(w http.ResponseWriter, r *http.Request) {
		name := path.Clean("/" + r.PathValue("path"))[1:]
		if name == "" {
			name = "index.html"
		}
		data, err := fs.ReadFile(ui, name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.Write(data)
	}, protorest.RouteDoc{Summary: "A static page that consumes the streams (SSE, WebSocket)."})
}

// demoCommands are the commands printDemoHelp suggests, $HTTP standing
// for the HTTP/JSON base URL, $HTTP_PORT for its port and $GRPC_PORT for
// the gRPC port. Each works
// as printed on a machine with Go and curl, against the demo's data (the
// shelves are shelves/fiction and shelves/poetry): scripts/e2e.sh runs
// every one of them, and fails on an HTTP error.
var demoCommands = []string{
	`curl -X POST -d '{"msg":"hello"}' -i $HTTP/api/v1/example/upper`,
	`go run github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.4 -plaintext -d '{"msg": "hello"}' localhost:$GRPC_PORT example.v1.MySvc/Upper`,
	`go run github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.4 -plaintext -d '{"count": 3, "intervalMs": 300}' localhost:$HTTP_PORT example.v1.MySvc/Watch`,
	`curl -X POST -d '{"msg":"hello"}' $HTTP/api/v1/example/echo`,
	`curl -X POST -d '{"msg":"hello"}' -H 'Accept: application/proto' $HTTP/api/v1/example/echo | od -c`,
	`curl -i $HTTP/v1/books/dune`,
	`curl $HTTP/v1/shelves`,
	`curl '$HTTP/v1/shelves/fiction/books?page_size=1'`,
	`curl -X PATCH -d '{"title":"New title"}' $HTTP/v1/shelves/fiction/books/dune`,
	`curl -N '$HTTP/api/v1/example/watch?count=3&intervalMs=300'`,
	`curl -N -H 'Accept: text/event-stream' '$HTTP/api/v1/example/watch?count=3&intervalMs=300'`,
	`printf '{"msg":"a"}\n{"msg":"b"}\n' | curl -N -X POST -T - $HTTP/api/v1/example/chat`,
	`curl $HTTP/files/readme.txt`,
	`curl -X POST -d '{"username":"ada","email":"ada@example.com","age":36}' $HTTP/v1/accounts`,
	`curl $HTTP/openapi.json`,
	`curl $HTTP/openapi.yaml`,
}

// demoRefusals are requests printDemoHelp suggests that break the
// accounts' protovalidate rules: each is answered 400 INVALID_ARGUMENT
// with a google.rpc.BadRequest naming the fields, and never reaches the
// service. scripts/e2e.sh runs them too.
var demoRefusals = []string{
	`curl -i -X POST -d '{"username":"Al","email":"not-an-email","age":7}' $HTTP/v1/accounts`,
	`curl -i $HTTP/v1/accounts/No`,
}

// demoPages are the pages printDemoHelp suggests opening in a browser,
// each with what it shows; scripts/e2e-browser.sh loads them.
var demoPages = [][2]string{
	{`$HTTP/docs/`, "the API's documentation, with Try-it"},
	{`$HTTP/ui/`, "a page that consumes the streams (SSE, WebSocket)"},
}

// printDemoHelp prints the demo's addresses, demoCommands to try,
// demoRefusals and demoPages to open.
func printDemoHelp(w io.Writer, grpcAddr, httpAddr net.Addr) {
	fmt.Fprintf(w, "protorest demo\n  gRPC      %s  (reflection and health on)\n  HTTP/JSON %s  (and Connect, gRPC-Web and gRPC, reflection on)\n\nTry:\n", grpcAddr, httpAddr)
	// $HTTP_PORT before $HTTP, its prefix: at one position, the first
	// match in argument order wins.
	r := strings.NewReplacer("$HTTP_PORT", port(httpAddr), "$HTTP", "http://localhost:"+port(httpAddr), "$GRPC_PORT", port(grpcAddr))
	for _, c := range demoCommands {
		fmt.Fprintf(w, "  %s\n", r.Replace(c))
	}
	fmt.Fprintf(w, "\nRefused by the rules (400, the service is not called):\n")
	for _, c := range demoRefusals {
		fmt.Fprintf(w, "  %s\n", r.Replace(c))
	}
	fmt.Fprintf(w, "\nIn a browser:\n")
	for _, p := range demoPages {
		fmt.Fprintf(w, "  %-32s %s\n", r.Replace(p[0]), p[1])
	}
}

func port(a net.Addr) string {
	_, p, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return p
}
