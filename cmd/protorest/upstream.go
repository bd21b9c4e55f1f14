package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest"
	"github.com/protorest/protorest/otelprotorest"
)

// reconnectBackoff makes a restarted upstream serve again within a
// second: grpc-go's default backoff grows to two minutes.
var reconnectBackoff = backoff.Config{
	BaseDelay:  100 * time.Millisecond,
	Multiplier: 1.6,
	Jitter:     0.2,
	MaxDelay:   800 * time.Millisecond, // at most 960 ms with jitter
}

// dialUpstream returns a pool of size of client connections to target:
// host:port, dns:///name:port (each connection balanced round robin over
// its addresses) or unix:///path, with creds and the options of every
// call, adding the metadata pairs md to every call: REST and proxied gRPC
// calls, reflection and health checks alike, since all go through it.
func dialUpstream(target string, size protorest.BackendPoolSize, creds credentials.TransportCredentials, callOpts []grpc.CallOption, md []string, extra ...grpc.DialOption) (*protorest.BackendPool, error) {
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: reconnectBackoff, MinConnectTimeout: 5 * time.Second}),
		grpc.WithDefaultServiceConfig(`{"loadBalancingConfig":[{"round_robin":{}}]}`),
		grpc.WithDefaultCallOptions(callOpts...),
	}
	if len(md) > 0 {
		opts = append(opts,
			grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
				return invoker(metadata.AppendToOutgoingContext(ctx, md...), method, req, reply, cc, opts...)
			}),
			grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
				return streamer(metadata.AppendToOutgoingContext(ctx, md...), desc, cc, method, opts...)
			}),
		)
	}
	return protorest.NewBackendPool(target, size, append(opts, extra...)...)
}

// upstream keeps a gateway's routes in step with the upstream server.
type upstream struct {
	pool        *protorest.BackendPool // every call goes through it
	conn        *grpc.ClientConn       // the pool's first: its state is the upstream's
	gw          *protorest.Gateway
	log         *slog.Logger
	target      string
	loadTimeout time.Duration
	maxMessage  int // --max-upstream-message-size, for REST calls as for the rest
	maxHeader   int // --max-upstream-header-bytes

	loaded atomic.Bool // the gateway has the upstream's routes

	// reloads counts reloads and their failures; nil without telemetry.
	reloads *otelprotorest.ReloadCounter
}

// observe reports the connection's state and counts the reloads to the
// telemetry of opts.
func (u *upstream) observe(opts []otelprotorest.Option) error {
	if _, err := otelprotorest.ObserveConnectivity(u.conn, opts...); err != nil {
		return err
	}
	rc, err := otelprotorest.NewReloadCounter(opts...)
	u.reloads = rc
	return err
}

// register loads the upstream's routes. An upstream that cannot be reached
// yet is not an error when its descriptors come from reflection: the
// gateway answers 503 until keepLoaded loads them. Anything else (no
// reflection service, a file that does not compile, a rule that cannot be
// served) is.
func (u *upstream) register(ctx context.Context, source protorest.RemoteOption, from string, reflection bool) error {
	ctx, cancel := context.WithTimeout(ctx, u.loadTimeout)
	defer cancel()
	err := u.gw.RegisterRemote(ctx, u.pool, source, protorest.WithPending(), protorest.WithMaxBackendMessageBytes(u.maxMessage),
		protorest.WithMaxBackendHeaderBytes(u.maxHeader))
	switch {
	case err == nil:
		u.loaded.Store(true)
		return nil
	case reflection && errors.Is(err, protorest.ErrNotLoaded) && unreachable(err):
		u.log.Warn("waiting for the upstream: answering 503 until its descriptors load",
			"upstream", u.target, "descriptors", from, "error", err)
		return nil
	}
	return err
}

// unreachable reports errors of an upstream that is down or starting.
func unreachable(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded:
		return true
	}
	return errors.Is(err, context.DeadlineExceeded)
}

// retryDelay is how often keepLoaded retries a failed load while the
// upstream is connected.
const retryDelay = time.Second

// keepLoaded reloads the routes whenever the upstream becomes ready after
// it was not (it came up, or restarted, perhaps with new services), and
// on every trigger, until ctx ends; it logs the changes of readiness.
func (u *upstream) keepLoaded(ctx context.Context, triggers <-chan string) {
	changes := make(chan connectivity.State, 1)
	go u.watch(ctx, changes)
	stale := !u.loaded.Load()
	ready := false
	var retry <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case state := <-changes:
			switch {
			case state == connectivity.Ready && stale:
				stale = !u.reload(ctx, "upstream connected")
			case state != connectivity.Ready:
				stale = true // what answers next may be a new server
			}
		case why := <-triggers:
			u.reload(ctx, why)
		case <-retry:
			if stale && u.conn.GetState() == connectivity.Ready {
				stale = !u.reload(ctx, "retry")
			}
		}
		ready = u.logReadiness(ready)
		retry = nil
		if stale {
			retry = time.After(retryDelay)
		}
	}
}

// watch sends the connectivity states of the upstream connection, asking
// it to connect whenever it goes idle.
func (u *upstream) watch(ctx context.Context, changes chan<- connectivity.State) {
	state := u.conn.GetState()
	for {
		if state == connectivity.Idle {
			u.conn.Connect()
		}
		select {
		case changes <- state:
		case <-ctx.Done():
			return
		}
		if !u.conn.WaitForStateChange(ctx, state) {
			return
		}
		state = u.conn.GetState()
	}
}

// reload reloads the routes and logs the outcome.
func (u *upstream) reload(ctx context.Context, why string) bool {
	ctx, cancel := context.WithTimeout(ctx, u.loadTimeout)
	defer cancel()
	err := u.gw.Reload(ctx)
	if u.reloads != nil {
		u.reloads.Add(ctx, err)
	}
	if err != nil {
		u.log.Warn("reload failed; keeping the routes loaded before", "reason", why, "upstream", u.target, "error", err)
		return false
	}
	u.loaded.Store(true)
	u.log.Info("routes loaded", "reason", why, "upstream", u.target)
	return true
}

// healthReport is the body of the health path.
type healthReport struct {
	Status       string `json:"status"`       // SERVING or NOT_SERVING
	Connectivity string `json:"connectivity"` // of the upstream connection
	Health       string `json:"health"`       // the upstream's grpc.health.v1 status, or why it has none
	Routes       string `json:"routes"`       // loaded or waiting
}

// health reports the upstream's connectivity and gRPC health: 200 when it
// serves and its routes are loaded, else 503.
func (u *upstream) health(w http.ResponseWriter, r *http.Request) {
	state := u.conn.GetState()
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	rep := healthReport{Status: "NOT_SERVING", Connectivity: state.String(), Routes: "waiting"}
	serving := false
	resp, err := healthpb.NewHealthClient(u.pool).Check(ctx, &healthpb.HealthCheckRequest{})
	switch {
	case err == nil:
		rep.Health = resp.GetStatus().String()
		serving = resp.GetStatus() == healthpb.HealthCheckResponse_SERVING
	case status.Code(err) == codes.Unimplemented:
		// No health service: a call that reached the server will do.
		rep.Health = otelprotorest.StatusCodeName(codes.Unimplemented)
		serving = true
	default:
		rep.Health = otelprotorest.StatusCodeName(status.Code(err))
	}
	if u.loaded.Load() {
		rep.Routes = "loaded"
	}
	code := http.StatusServiceUnavailable
	if serving && u.loaded.Load() {
		rep.Status, code = "SERVING", http.StatusOK
	}
	writeProbe(w, code, rep)
}
