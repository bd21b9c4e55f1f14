package exchange

// Outcome is what answers a streaming call that ended with err, and stops
// its idle watch. In order:
//
//   - the timeout that ended it, if one did (a body read that timed out,
//     the stream idle timeout): a timeout cancels the call, which the call
//     may report first, as CANCELED;
//   - what the client sent that could not be read (the Source's Err): that,
//     not what the method or the backend made of it, is the answer; the
//     call is canceled for it, and may end first;
//   - else err.
func (x *Exchange) Outcome(err error) error {
	if cause := x.clock.Failure(); cause != nil {
		return cause
	}
	if idle := x.idle.Stop(); idle != nil {
		return idle
	}
	if bad := x.Source.Err(); bad != nil {
		return bad
	}
	return err
}
