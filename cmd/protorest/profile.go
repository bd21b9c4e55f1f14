package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
)

// Profiles of serve, a debugging aid for finding where its time and
// memory go (go tool pprof FILE): no flag, so that --help stays about
// serving.
const (
	// cpuProfileVariable names a file that gets a CPU profile of serve,
	// from its start to its exit.
	cpuProfileVariable = "PROTOREST_CPUPROFILE"
	// memProfileVariable names a file that gets, at exit, the profile of
	// the memory serve allocated since its start (sampled, pprof's
	// allocs: alloc_space, alloc_objects, and inuse_ at exit).
	memProfileVariable = "PROTOREST_MEMPROFILE"
)

// startProfiles starts the profiles that the environment asks for and
// returns the function that writes them, at exit.
func startProfiles(lookupEnv func(string) (string, bool)) (stop func() error, err error) {
	var cpu *os.File
	if path, _ := lookupEnv(cpuProfileVariable); path != "" {
		if cpu, err = os.Create(path); err != nil {
			return nil, fmt.Errorf("%s: %w", cpuProfileVariable, err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("%s: %w", cpuProfileVariable, err)
		}
	}
	memPath, _ := lookupEnv(memProfileVariable)
	return func() error {
		var errs []error
		if cpu != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cpu.Close())
		}
		if memPath != "" {
			errs = append(errs, writeProfile(memPath, func(f *os.File) error { return pprof.Lookup("allocs").WriteTo(f, 0) }))
		}
		return errors.Join(errs...)
	}, nil
}

// writeProfile creates path and writes it with write.
func writeProfile(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(write(f), f.Close())
}
