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

// Split sorts the cases of runs that named every case (--known-failing
// "**") into those that failed in every run, those that failed in some
// only (flaky), and those that passed in every run.
func Split(runs []*Run) (failing, flaky, passing []string) {
	fails := map[string]int{}
	for _, r := range runs {
		f, p := r.Failing()
		for _, name := range f {
			fails[name]++
		}
		for _, name := range p {
			fails[name] += 0
		}
	}
	for name, n := range fails {
		switch n {
		case len(runs):
			failing = append(failing, name)
		case 0:
			passing = append(passing, name)
		default:
			flaky = append(flaky, name)
		}
	}
	return failing, flaky, passing
}
