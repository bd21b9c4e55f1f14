package edge

import (
	"net/http"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/httperr"
)

// errMisconfigured is what a client of a misconfigured gateway is told:
// the mistakes are the operator's business.
var errMisconfigured = status.Error(codes.Internal, "the gateway is misconfigured")

// Refuse answers every request with 500 INTERNAL through fail, and has
// report told of err, the options' mistakes, once: the head of a
// misconfigured gateway, in place of its chain.
func Refuse(err error, report func(error), fail httperr.Handler) http.Handler {
	return &refusal{err: err, report: report, fail: fail}
}

type refusal struct {
	err      error
	report   func(error)
	fail     httperr.Handler
	reported sync.Once
}

func (f *refusal) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.reported.Do(func() { f.report(f.err) })
	f.fail(w, r, errMisconfigured)
}
