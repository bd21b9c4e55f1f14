package outcome

// A Tally is the outcomes of one protocol's cases.
type Tally struct {
	Cases, Passed, KnownFailing, Failed, UnexpectedPass int
}

// Tally counts the run's outcomes by protocol. Passed includes the
// unexpected passes.
func (r *Run) Tally() map[string]*Tally {
	t := map[string]*Tally{}
	for _, p := range Protocols {
		t[p] = &Tally{Cases: r.Cases[p]}
	}
	for name, kind := range r.Named {
		pt := t[Protocol(name)]
		switch kind {
		case Failed:
			pt.Failed++
		case KnownFailing:
			pt.KnownFailing++
		case UnexpectedPass:
			pt.UnexpectedPass++
		}
	}
	for _, pt := range t {
		pt.Passed = pt.Cases - pt.Failed - pt.KnownFailing
	}
	return t
}

// Failing is the names of the cases that failed, known or not; Passing
// those the runner names that passed (all of them when --known-failing
// was "**", which makes it name every case).
func (r *Run) Failing() (failing, passing []string) {
	for name, kind := range r.Named {
		if kind == UnexpectedPass {
			passing = append(passing, name)
		} else {
			failing = append(failing, name)
		}
	}
	return failing, passing
}
