package bench

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"

	"github.com/protorest/protorest"
)

// aipRouteKinds are the routes of an AIP-style resource; %d names the
// collection, so that each group of kinds adds new literals.
var aipRouteKinds = []struct{ method, template string }{
	{"GET", "/v1/{name=projects/*/topics/t%d/subscriptions/*}"},
	{"GET", "/v1/{parent=projects/*/topics/t%d}/subscriptions"},
	{"POST", "/v1/{parent=projects/*/topics/t%d}/subscriptions"},
	{"PATCH", "/v1/{subscription.name=projects/*/topics/t%d/subscriptions/*}"},
	{"DELETE", "/v1/{name=projects/*/topics/t%d/subscriptions/*}"},
	{"POST", "/v1/{name=projects/*/topics/t%d/subscriptions/*}:acknowledge"},
	{"POST", "/v1/{topic=projects/*/topics/t%d}:publish"},
	{"GET", "/v1/{name=projects/*/locations/*/r%d/*}"},
	{"GET", "/v1/{name=operations/o%d/**}"},
}

// route is one synthetic route.
type route struct{ method, template string }

// aipRoutes returns n routes, and a GET path that matches the first kind
// of the group in the middle of them, with the name it binds.
func aipRoutes(n int) (routes []route, path, name string) {
	for i := range n {
		k := aipRouteKinds[i%len(aipRouteKinds)]
		routes = append(routes, route{k.method, fmt.Sprintf(k.template, i/len(aipRouteKinds))})
	}
	name = "projects/my-project/topics/t" + strconv.Itoa(n/len(aipRouteKinds)/2) + "/subscriptions/sub-1"
	return routes, "/v1/" + name, name
}

// A router under BenchmarkRouting: it registers routes, all served by a
// handler that stores the "name" path variable in got, and is the
// http.Handler that dispatches to them.
type router struct {
	name  string
	build func(routes []route, got *string) (http.Handler, error)
}

var routers = []router{
	{"protorest", func(routes []route, got *string) (http.Handler, error) {
		gw := protorest.NewGateway()
		h := func(_ http.ResponseWriter, r *http.Request) { *got = r.PathValue("name") }
		for _, rt := range routes {
			if err := gw.HandlePath(rt.method, rt.template, h); err != nil {
				return nil, err
			}
		}
		return gw, nil
	}},
	{"grpc-gateway", func(routes []route, got *string) (http.Handler, error) {
		mux := runtime.NewServeMux()
		h := func(_ http.ResponseWriter, _ *http.Request, params map[string]string) { *got = params["name"] }
		for _, rt := range routes {
			if err := mux.HandlePath(rt.method, rt.template, h); err != nil {
				return nil, err
			}
		}
		return mux, nil
	}},
}

// BenchmarkRouting measures dispatching one request among n AIP-style
// custom routes (HandlePath on both routers), matching a route in the
// middle of the set: BenchmarkRouting/<n>/<router>. The response writer
// is reused, and the handler only reads the variable, so this is routing
// and path-variable extraction alone. Each pass starts from the request
// as it arrived (a copy of it: protorest sets the path values on the
// request, whose map a reused request would keep from the pass before).
func BenchmarkRouting(b *testing.B) {
	for _, n := range []int{1, 50, 500, 5000} {
		routes, path, name := aipRoutes(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for _, rt := range routers {
				b.Run(rt.name, func(b *testing.B) {
					var got string
					h, err := rt.build(routes, &got)
					if err != nil {
						b.Fatal(err)
					}
					req, err := http.NewRequest("GET", path, nil)
					if err != nil {
						b.Fatal(err)
					}
					arrived := *req
					w := &nopResponseWriter{header: http.Header{}}
					h.ServeHTTP(w, req)
					if got != name || w.status != 0 {
						b.Fatalf("GET %s: status %d, name %q, want the route's handler with %q", path, w.status, got, name)
					}
					b.ReportAllocs()
					for b.Loop() {
						*req = arrived
						h.ServeHTTP(w, req)
					}
				})
			}
		})
	}
}

// nopResponseWriter discards the response, remembering its status.
type nopResponseWriter struct {
	header http.Header
	status int
}

func (w *nopResponseWriter) Header() http.Header         { return w.header }
func (w *nopResponseWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopResponseWriter) WriteHeader(status int)      { w.status = status }
