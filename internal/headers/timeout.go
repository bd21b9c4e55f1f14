package headers

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/text"
)

// WithTimeout gives ctx the call's deadline: a Grpc-Timeout header
// ("<digits><unit>", unit one of H M S m u n), at most p.MaxTimeout when
// that is set; without one, p.DefaultTimeout for a unary call (a stream
// may rightly last as long as its client stays). The cancel function is
// nil when there is no deadline.
func (p *Policy) WithTimeout(ctx context.Context, r *http.Request, streaming bool) (context.Context, context.CancelFunc, error) {
	var d time.Duration
	if v := r.Header.Get(timeoutHeader); v != "" {
		var ok bool
		if d, ok = parseTimeout(v); !ok {
			return ctx, nil, status.Errorf(codes.InvalidArgument, "invalid Grpc-Timeout %q", text.Truncate(v, 32))
		}
		if p.MaxTimeout > 0 {
			d = min(d, p.MaxTimeout)
		}
	} else if !streaming && p.DefaultTimeout > 0 {
		d = p.DefaultTimeout
	} else {
		return ctx, nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, cancel, nil
}

func parseTimeout(v string) (time.Duration, bool) {
	if len(v) < 2 || len(v) > 9 {
		return 0, false
	}
	n, err := strconv.ParseUint(v[:len(v)-1], 10, 64)
	if err != nil {
		return 0, false
	}
	var unit time.Duration
	switch v[len(v)-1] {
	case 'H':
		unit = time.Hour
	case 'M':
		unit = time.Minute
	case 'S':
		unit = time.Second
	case 'm':
		unit = time.Millisecond
	case 'u':
		unit = time.Microsecond
	case 'n':
		unit = time.Nanosecond
	default:
		return 0, false
	}
	const maxDuration = time.Duration(1<<63 - 1)
	if n > uint64(maxDuration/unit) {
		return maxDuration, true
	}
	return time.Duration(n) * unit, true
}

// Bound gives ctx, whose deadline a protocol's own timeout header set
// (Connect-Timeout-Ms, Grpc-Timeout), the policy's bounds: at most
// p.MaxTimeout; without a deadline, p.DefaultTimeout for a unary call.
// The cancel function is nil when the deadline is ctx's own.
func (p *Policy) Bound(ctx context.Context, streaming bool) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	switch {
	case ok && p.MaxTimeout > 0 && time.Until(deadline) > p.MaxTimeout:
		return context.WithTimeout(ctx, p.MaxTimeout)
	case !ok && !streaming && p.DefaultTimeout > 0:
		return context.WithTimeout(ctx, p.DefaultTimeout)
	}
	return ctx, nil
}
