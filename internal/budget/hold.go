package budget

import "context"

// A Hold is bytes taken from a budget, and from a connection's share,
// until Release gives them back. The zero Hold holds nothing.
type Hold struct {
	b     *Budget
	conn  *Conn
	n     int64 // from the budget
	connN int64 // from conn's share
}

// N is how many bytes h holds of its budget.
func (h *Hold) N() int64 { return h.n }

// takeNow takes h's bytes if its connection's share and the budget have
// them at once.
func (h *Hold) takeNow() bool {
	if h.conn != nil && !h.conn.take(h.connN, h.b.perConn) {
		return false
	}
	if !h.b.takeAvail(h.n) {
		h.conn.give(h.connN)
		return false
	}
	return true
}

// Release gives back what h holds, once: h then holds nothing.
func (h *Hold) Release() {
	if h.b == nil {
		return
	}
	h.conn.give(h.connN)
	h.b.give(h.n)
	*h = Hold{}
}

// Shrink gives back what h holds beyond n bytes.
func (h *Hold) Shrink(n int64) {
	if h.b == nil {
		return
	}
	n = max(n, 0)
	if h.conn != nil && n < h.connN {
		h.conn.give(h.connN - n)
		h.connN = n
	}
	if g := min(n, h.b.size); g < h.n {
		h.b.avail.Add(h.n - g)
		h.n = g
	}
	h.b.wake()
}

// TryGrow makes h hold n bytes if the bytes it lacks are free at once
// and nobody waits before, and reports whether it does.
func (h *Hold) TryGrow(n int64) bool {
	if h.b == nil {
		return true
	}
	more := Hold{b: h.b, n: max(min(n, h.b.size)-h.n, 0)}
	if h.conn != nil {
		more.conn, more.connN = h.conn, max(n-h.connN, 0)
	}
	if h.b.queued.Load() != 0 || !more.takeNow() {
		return false
	}
	h.n += more.n
	h.connN += more.connN
	return true
}

// Grow makes h hold n bytes (at most all of the budget), waiting for the
// bytes it lacks as Take does, unless another Grow waits already; with no
// room it fails with ErrNoRoom, h unchanged.
func (h *Hold) Grow(ctx context.Context, n int64) error {
	if h.b == nil {
		return nil
	}
	if n = min(n, h.b.size); n <= h.n {
		return nil
	}
	more, err := h.b.take(ctx, n-h.n, true)
	if err != nil {
		return err
	}
	if h.conn == nil {
		h.conn = more.conn
	}
	h.n += more.n
	h.connN += more.connN
	return nil
}
