package otelprotorest_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/otelprotorest"
)

func itoa(n int) string { return strconv.Itoa(n) }

func value(set attribute.Set, k attribute.Key) (string, bool) {
	v, ok := set.Value(k)
	return v.Emit(), ok
}

// TestRequestDuration: http.server.request.duration is labelled with the
// method, the route template (never the path; "" for no route) and the
// status, and nothing a client chooses freely (host, user agent).
func TestRequestDuration(t *testing.T) {
	t.Parallel()
	tel := newTelemetry(t)
	url := inProcess(t, tel)
	for _, p := range []string{"/v1/shelves/fiction/books/dune", "/v1/shelves/poetry/books/leaves-of-grass", "/v1/shelves/fiction/books/nope", "/no/such/route"} {
		get(t, url+p, "User-Agent", "agent-"+p, "Host", "spoofed.example")
	}
	h := tel.metric(t, "http.server.request.duration").(metricdata.Histogram[float64])
	count := map[string]uint64{}
	for _, dp := range h.DataPoints {
		route, ok := value(dp.Attributes, "http.route")
		if !ok {
			t.Errorf("a data point without http.route: %v", dp.Attributes.ToSlice())
		}
		code, _ := value(dp.Attributes, "http.response.status_code")
		method, _ := value(dp.Attributes, "http.request.method")
		count[method+" "+route+" "+code] += dp.Count
		for _, k := range []attribute.Key{"url.path", "user_agent.original"} {
			if v, ok := value(dp.Attributes, k); ok {
				t.Errorf("%s = %q: unbounded", k, v)
			}
		}
		if v, _ := value(dp.Attributes, "server.address"); v != "gateway.test" {
			t.Errorf("server.address = %q, want WithServerName's", v)
		}
	}
	want := map[string]uint64{
		"GET /v1/{name=shelves/*/books/*} 200": 2,
		"GET /v1/{name=shelves/*/books/*} 404": 1,
		"GET  404":                             1,
	}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%q: %d requests, want %d (all: %v)", k, count[k], n, count)
		}
	}
	if len(count) != len(want) {
		t.Errorf("series %v, want %v", count, want)
	}
	active := tel.metric(t, "http.server.active_requests").(metricdata.Sum[int64])
	for _, dp := range active.DataPoints {
		if dp.Value != 0 {
			t.Errorf("%d requests in flight after all were answered", dp.Value)
		}
	}
}

// TestConnectivity: one series per state, 1 for the connection's.
func TestConnectivity(t *testing.T) {
	t.Parallel()
	tel := newTelemetry(t)
	url, _, conn := remote(t, tel)
	get(t, url+"/v1/shelves") // the connection is ready
	reg, err := otelprotorest.ObserveConnectivity(conn, tel.opts...)
	if err != nil {
		t.Fatal(err)
	}
	check := func(want connectivity.State) {
		t.Helper()
		g := tel.metric(t, "protorest.upstream.connectivity").(metricdata.Gauge[int64])
		if len(g.DataPoints) != 5 {
			t.Fatalf("%d series, want 5", len(g.DataPoints))
		}
		for _, dp := range g.DataPoints {
			state, _ := value(dp.Attributes, "protorest.upstream.state")
			target, _ := value(dp.Attributes, "protorest.upstream.target")
			if target != conn.Target() {
				t.Errorf("target %q", target)
			}
			if (state == want.String()) != (dp.Value == 1) {
				t.Errorf("%s = %d with the connection %s", state, dp.Value, want)
			}
		}
	}
	check(connectivity.Ready)
	conn.Close()
	check(connectivity.Shutdown)
	if err := reg.Unregister(); err != nil {
		t.Fatal(err)
	}
}

// TestReloadCounter: reloads counted, failures with their code.
func TestReloadCounter(t *testing.T) {
	t.Parallel()
	tel := newTelemetry(t)
	rc, err := otelprotorest.NewReloadCounter(tel.opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rc.Add(ctx, nil)
	rc.Add(ctx, nil)
	rc.Add(ctx, status.Error(codes.Unavailable, "down"))
	rc.Add(ctx, errors.New("plain"))
	got := map[string]int64{}
	for _, dp := range tel.metric(t, "protorest.reloads").(metricdata.Sum[int64]).DataPoints {
		e, _ := value(dp.Attributes, "error.type")
		got[e] = dp.Value
	}
	want := map[string]int64{"": 2, "UNAVAILABLE": 1, "UNKNOWN": 1}
	if len(got) != len(want) {
		t.Errorf("reloads %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("reloads %v, want %v", got, want)
		}
	}
}

// TestMadeUpMethodsShareOneSeries: a request with a method no RFC
// defines is counted as "_OTHER", as otelhttp labels it, so clients
// cannot make new series by inventing methods.
func TestMadeUpMethodsShareOneSeries(t *testing.T) {
	t.Parallel()
	tel := newTelemetry(t)
	url := inProcess(t, tel)
	for _, m := range []string{"BREW", "PROPFIND-X"} {
		req, _ := http.NewRequest(m, url+"/v1/shelves", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	active := tel.metric(t, "http.server.active_requests").(metricdata.Sum[int64])
	var methods []string
	for _, dp := range active.DataPoints {
		m, _ := value(dp.Attributes, "http.request.method")
		methods = append(methods, m)
	}
	if len(methods) != 1 || methods[0] != "_OTHER" {
		t.Errorf("http.server.active_requests methods %q, want one series, _OTHER", methods)
	}
}
