// Package exchange holds the state of one HTTP request as it goes through
// the pipeline (route → negotiate → bind → invoke → render → errors),
// and the seams between the stages: a Binding is a rule's plans, an
// Invoker makes the call, a render.Sink takes the answer.
//
// An Exchange is pooled: ServeHTTP gets one, every stage reads and
// writes it, and a unary call's goes back to the pool when the handler
// returns. Nothing may keep it past that: a method's handler calls its
// decode function during the call only.
package exchange

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/budget"
	"github.com/protorest/protorest/internal/bufpool"
	"github.com/protorest/protorest/internal/classlimit"
	"github.com/protorest/protorest/internal/compress"
	"github.com/protorest/protorest/internal/headers"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/negotiate"
	"github.com/protorest/protorest/internal/render"
	"github.com/protorest/protorest/internal/route"
	"github.com/protorest/protorest/internal/timeouts"
)

// Env is what every request of one gateway reads. NewGateway builds it;
// it never changes after.
type Env struct {
	Formats *negotiate.Formats
	Headers headers.Policy
	Render  render.Config // its Headers is &Headers
	// MaxBody limits a request body, and each message of a request
	// stream; 0 or less is no limit.
	MaxBody int64
	// Decoding, if not nil, is the budget the body of a one-message
	// request takes from while it is held (see Bind).
	Decoding *budget.Budget
	// MaxURLBytes, MaxHeaders and MaxQueryParams limit what Admit
	// checks; 0 or less is no limit.
	MaxURLBytes, MaxHeaders, MaxQueryParams int
	PanicHook                               func(method string, value any, stack []byte)
	// Stats, if not nil, is told about every in-process call as a
	// grpc.Server's stats handler is.
	Stats stats.Handler
	// WebSocketOrigins are the host patterns of pages from other origins
	// that may open WebSockets.
	WebSocketOrigins []string
	// ReadIdleTimeout bounds the wait for request body bytes (see
	// timeouts.ReadClock); StreamIdleTimeout, a streaming call that passes
	// no message either way (see timeouts.IdleWatch). 0 or less is none.
	ReadIdleTimeout, StreamIdleTimeout time.Duration
}

// An Exchange is one request on its way through the pipeline.
type Exchange struct {
	Env     *Env
	W       http.ResponseWriter
	R       *http.Request
	Match   route.Match[*Endpoint]
	Binding *Binding

	// Input is what the binding's request plan reads: the body of a
	// one-message request, in Input.Format (the request's negotiated
	// format), the path variables, the query.
	Input bind.Input
	// Out is the negotiated format of the response messages.
	Out *negotiate.Format
	// Source gives the request messages; Sink takes the answer.
	Source Source
	Sink   Sink

	// RPC says the request came in over Connect, gRPC-Web or gRPC
	// (internal/protocols): its headers are its metadata as they are, and
	// its context already has the deadline its protocol asked for.
	RPC bool
	ctx context.Context // the call's, when not the request's (SetContext)
	// Received counts the request messages decoded.
	Received int
	// Recorder, if not nil, is told what passes to the Sink once the
	// call is made.
	Recorder Recorder
	// Slot is the call's place within its class's cap
	// (classlimit.Limiter.Take), given back by CallEnded or Put.
	Slot classlimit.Slot

	recorded recordedSink     // the Sink in front of the Sink, with a Recorder
	unary    render.Unary     // the sink of a call with one response
	one      one              // the source of a request with one message
	limited  io.LimitedReader // the body within the limit, without an allocation
	body     *bytes.Buffer
	coded    *compress.Body // the request body as its Content-Encoding decodes it, or nil
	scratch  *bytes.Buffer  // released with the exchange
	decodeFn func(any) error
	clock    *timeouts.ReadClock // kept by the pooled exchange, with its timer
	decoding budget.Hold         // of Env.Decoding, until the call ends
	counted  countedBody         // the body buffer while it is read
	idle     *timeouts.IdleWatch // a streaming call's, or nil
}

var pool = sync.Pool{New: func() any {
	x := new(Exchange)
	x.decodeFn = x.decode
	x.one.x = x
	x.clock = new(timeouts.ReadClock)
	return x
}}

// Get returns a pooled exchange for a request to env's gateway.
func Get(env *Env, w http.ResponseWriter, r *http.Request) *Exchange {
	x := pool.Get().(*Exchange)
	x.Env, x.W, x.R = env, w, r
	return x
}

// Put returns x to the pool, once the call has ended. The exchange of a
// streaming call is left to the garbage collector instead: its handler
// may leave a goroutine behind that still holds the stream (though not
// one that reads the request body: BodySource.Stop has ended that, so a
// decoded body's decoder goes back to its pool all the same).
func Put(x *Exchange) {
	x.Slot.Release()
	if x.coded != nil {
		x.coded.Close()
		x.coded = nil
	}
	if x.Binding != nil && x.Binding.Streaming() {
		x.decoding.Release()
		return
	}
	x.decoding.Release()
	bufpool.Put(x.body)
	bufpool.Put(x.scratch)
	decode, clock := x.decodeFn, x.clock
	clock.Release()
	*x = Exchange{decodeFn: decode, one: one{x: x}, clock: clock}
	pool.Put(x)
}

// Negotiate picks the formats of the request (Content-Type) and of the
// response (Accept), and the sink the answer goes to: a server stream's
// framing, or one response.
func (x *Exchange) Negotiate() {
	f := x.Env.Formats
	x.SetInput(f.Request(x.R.Header.Get("Content-Type")))
	accept := headers.List(x.R.Header, "Accept")
	if x.Binding.ServerStreams {
		fr := f.Stream(accept, x.Input.Format)
		x.Out = fr.Format
		x.Sink = render.NewStream(x.reply(), fr)
		return
	}
	x.Out = f.Response(accept, x.Input.Format)
	x.unary.Reset(x.reply())
	x.Sink = &x.unary
}

// SetInput sets the request's format, and the input of the binding's
// request plan: the path variables, the query, the headers.
func (x *Exchange) SetInput(in *negotiate.Format) {
	x.Input = bind.Input{Format: in, Header: x.R.Header, Vars: &x.Match, RawQuery: x.R.URL.RawQuery}
}

func (x *Exchange) reply() render.Reply {
	return render.Reply{W: x.W, R: x.R, Plan: x.Binding.Response, Out: x.Out, Cfg: &x.Env.Render}
}

// Fail answers the request with err, through the error handler, with
// Retry-After when err is Busy.
func (x *Exchange) Fail(err error) {
	httperr.SetRetryAfter(x.W.Header(), err)
	x.Env.Render.ErrorHandler(x.W, x.R, err)
}

// DecodeFunc returns the function a generated method handler calls to
// fill its request message; it is bound once per pooled exchange.
func (x *Exchange) DecodeFunc() func(any) error { return x.decodeFn }

func (x *Exchange) decode(v any) error {
	msg, ok := v.(proto.Message)
	if !ok {
		return status.Errorf(codes.Internal, "request type %T is not a message", v)
	}
	return x.decodeInput(msg)
}

// decodeInput fills msg from x.Input, by the binding's request plan, and
// checks it when the plan has a check (a method with validation rules).
func (x *Exchange) decodeInput(msg proto.Message) error {
	p := x.Binding.Request
	if err := p.Decode(msg, &x.Input); err != nil {
		return err
	}
	if p.Check != nil {
		if err := p.Validate(msg, &x.Input); err != nil {
			return err
		}
	}
	x.Received++
	return nil
}

// Invoke makes the call, telling the Recorder if there is one.
func (x *Exchange) Invoke() {
	if x.Recorder != nil {
		x.recorded = recordedSink{Sink: x.Sink, x: x}
		x.Sink = &x.recorded
	}
	x.Binding.Invoker.Invoke(x)
}

// CallEnded gives back the call's place within its class's cap, for an
// invoker whose call has ended before its answer is written: a reader
// that is slow to take the answer holds the response budget and its
// write timeout, not a place that the calls to come need.
func (x *Exchange) CallEnded() {
	x.Slot.Release()
}

// Scratch returns a pooled buffer that lives as long as the exchange.
func (x *Exchange) Scratch() *bytes.Buffer {
	if x.scratch == nil {
		x.scratch = bufpool.Get()
	}
	return x.scratch
}

// Recover turns a panic in the gateway's own request path (a bug, not a
// method handler's panic, which the invoker recovers) into a 500 status
// and a report to the panic hook, instead of a dropped connection.
// http.ErrAbortHandler still aborts. Call it deferred.
func (x *Exchange) Recover() {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	method := ""
	if x.Binding != nil {
		method = x.Binding.FullMethod
	}
	x.Env.PanicHook(method, v, debug.Stack())
	x.Fail(status.Error(codes.Internal, "internal error in the gateway"))
}
