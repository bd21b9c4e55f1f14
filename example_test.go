package protorest_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"google.golang.org/grpc/status"

	"github.com/protorest/protorest"
	bookstorev1 "github.com/protorest/protorest/examples/bookstore/v1"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	"github.com/protorest/protorest/examples/services"
)

// show prints the status and body of an HTTP exchange.
func show(resp *http.Response, err error) {
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, strings.TrimSpace(string(body)))
}

// Register a generated service exactly as on a grpc.Server; its
// google.api.http rules become HTTP routes.
func Example() {
	gw := protorest.NewGateway()
	examplev1.RegisterMySvcServer(gw, services.NewMySvc())

	srv := httptest.NewServer(gw)
	defer srv.Close()
	show(http.Post(srv.URL+"/api/v1/example/upper", "application/json", strings.NewReader(`{"msg":"hello"}`)))
	show(http.Post(srv.URL+"/api/v1/example/echo", "application/json", strings.NewReader(`{"msg":"hello"}`)))
	show(http.Get(srv.URL + "/api/v1/example/echo"))
	// Output:
	// 200 {"msg":"HELLO"}
	// 200 {"msg":"echo: hello"}
	// 405 {"code":12,"message":"Method Not Allowed","details":[]}
}

// Custom routes use the same template syntax as google.api.http and share
// the router with the services' routes.
func ExampleGateway_HandlePath() {
	gw := protorest.NewGateway()
	err := gw.HandlePath("GET", "/files/{id}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "file %s", r.PathValue("id"))
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	err = gw.HandlePath("GET", "/ui/{path=**}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "page %q", r.PathValue("path"))
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	srv := httptest.NewServer(gw)
	defer srv.Close()
	show(http.Get(srv.URL + "/files/a%20b"))
	show(http.Get(srv.URL + "/ui/css/site.css"))
	show(http.Get(srv.URL + "/nope"))
	// Output:
	// 200 file a b
	// 200 page "css/site.css"
	// 404 {"code":5,"message":"Not Found","details":[]}
}

// An error handler replaces the google.rpc.Status body with another shape,
// for every error: the methods' and the gateway's own.
func ExampleWithErrorHandler() {
	gw := protorest.NewGateway(protorest.WithErrorHandler(func(w http.ResponseWriter, r *http.Request, err error) {
		st := status.Convert(err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(protorest.HTTPStatus(err))
		fmt.Fprintf(w, `{"error":{"code":%q,"message":%q}}`, st.Code(), st.Message())
	}))
	bookstorev1.RegisterBookServiceServer(gw, services.NewBookService())

	srv := httptest.NewServer(gw)
	defer srv.Close()
	show(http.Get(srv.URL + "/v1/books/"))
	show(http.Get(srv.URL + "/v2/nothing"))
	// Output:
	// 400 {"error":{"code":"InvalidArgument","message":"Name argument is required"}}
	// 404 {"error":{"code":"NotFound","message":"Not Found"}}
}

// Serve a gateway with the recommended server settings and idle
// timeouts; any field of the server can be changed before serving.
func ExampleNewServer() {
	gw := protorest.NewGateway(
		protorest.WithReadIdleTimeout(10*time.Second),  // the default is 30 s
		protorest.WithStreamIdleTimeout(2*time.Minute), // the default is 5 min
	)
	examplev1.RegisterMySvcServer(gw, services.NewMySvc())

	srv := protorest.NewServer("127.0.0.1:0", gw)
	srv.IdleTimeout = time.Minute // keep-alive connections: 120 s by default
	fmt.Println(srv.ReadHeaderTimeout, srv.MaxHeaderBytes, srv.HTTP2.MaxConcurrentStreams)

	lis, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		fmt.Println(err)
		return
	}
	go srv.Serve(lis) // HTTP/1.1 and h2c; srv.ServeTLS for HTTPS and HTTP/2
	defer srv.Close()
	show(http.Post("http://"+lis.Addr().String()+"/api/v1/example/upper", "application/json", strings.NewReader(`{"msg":"hello"}`)))
	// Output:
	// 10s 65536 100
	// 200 {"msg":"HELLO"}
}
