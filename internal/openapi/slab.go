package openapi

// A slab hands out new values of T from chunks of slabLen: a build makes
// tens of thousands of operations, parameters and schemas that all live
// as long as the document, and taking them a chunk at a time spares the
// allocator and the collector most of the work of taking them one by one.
type slab[T any] struct {
	free []T
}

const slabLen = 64

// new returns a pointer to a zero T.
func (s *slab[T]) new() *T {
	if len(s.free) == 0 {
		s.free = make([]T, slabLen)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}

// slice returns an empty slice of capacity n.
func (s *slab[T]) slice(n int) []T {
	if n > slabLen {
		return make([]T, 0, n)
	}
	if len(s.free) < n {
		s.free = make([]T, slabLen)
	}
	out := s.free[:0:n]
	s.free = s.free[n:]
	return out
}
