package edge

import (
	"net/http"

	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/httperr"
)

// Admit refuses, through fail, a request over env's limits on its
// target, its header lines and its query parameters (Env.Admit: 414, 431,
// 400); nil when env sets none of them.
func Admit(env *exchange.Env, fail httperr.Handler) Layer {
	if env.MaxURLBytes <= 0 && env.MaxHeaders <= 0 && env.MaxQueryParams <= 0 {
		return nil
	}
	return func(next http.Handler) http.Handler { return &admission{env, fail, next} }
}

type admission struct {
	env  *exchange.Env
	fail httperr.Handler
	next http.Handler
}

func (a *admission) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := a.env.Admit(r); err != nil {
		a.fail(w, r, err)
		return
	}
	a.next.ServeHTTP(w, r)
}
