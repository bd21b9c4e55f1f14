package render

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// deadlineWriter records the write deadlines set on it, as
// http.ResponseController sets them.
type deadlineWriter struct {
	http.ResponseWriter
	set []time.Time
}

func (w *deadlineWriter) SetWriteDeadline(t time.Time) error {
	w.set = append(w.set, t)
	return nil
}

// TestLimitBody: a whole response on HTTP/1.x that net/http keeps in its
// buffer until the handler returns gets no deadline (it would bound no
// write); a larger one gets one, lifted by end; on HTTP/2 every response
// gets one, left for the stream's end.
func TestLimitBody(t *testing.T) {
	for _, c := range []struct {
		proto int
		n     int
		set   int // deadlines set, the lift included
	}{
		{1, 0, 0}, {1, bufferedBody, 0}, {1, bufferedBody + 1, 2}, {1, 1 << 20, 2},
		{2, 0, 1}, {2, bufferedBody, 1}, {2, 1 << 20, 1},
	} {
		w := &deadlineWriter{ResponseWriter: httptest.NewRecorder()}
		r := httptest.NewRequest("GET", "/", nil)
		r.ProtoMajor = c.proto
		limitBody(w, r, time.Second, c.n).end()
		if len(w.set) != c.set {
			t.Errorf("HTTP/%d, %d bytes: %d deadlines set, want %d", c.proto, c.n, len(w.set), c.set)
		}
		if len(w.set) == 2 && !w.set[1].IsZero() {
			t.Errorf("HTTP/%d, %d bytes: the deadline was not lifted: %v", c.proto, c.n, w.set)
		}
		if len(w.set) > 0 && w.set[0].IsZero() {
			t.Errorf("HTTP/%d, %d bytes: no deadline set: %v", c.proto, c.n, w.set)
		}
	}
}

// TestLimitWrite: LimitWrite sets a deadline d from now that Lift lifts;
// none with d <= 0, or on a writer that cannot set one.
func TestLimitWrite(t *testing.T) {
	w := &deadlineWriter{ResponseWriter: httptest.NewRecorder()}
	l := LimitWrite(w, time.Second)
	if len(w.set) != 1 || time.Until(w.set[0]) <= 0 {
		t.Fatalf("deadlines set: %v", w.set)
	}
	l.Lift()
	if len(w.set) != 2 || !w.set[1].IsZero() {
		t.Errorf("after Lift: %v", w.set)
	}
	LimitWrite(w, 0).Lift()
	LimitWrite(httptest.NewRecorder(), time.Second).Lift()
	if len(w.set) != 2 {
		t.Errorf("a deadline of 0 set one: %v", w.set)
	}
}

// BenchmarkLimitWrite: setting and lifting a message's write deadline
// allocates nothing of its own.
func BenchmarkLimitWrite(b *testing.B) {
	w := &deadlineWriter{ResponseWriter: httptest.NewRecorder()}
	b.ReportAllocs()
	for b.Loop() {
		w.set = w.set[:0]
		LimitWrite(w, time.Second).Lift()
	}
}
