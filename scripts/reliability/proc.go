package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// procStat is what /proc says of a process at one moment.
type procStat struct {
	rssKiB  int64 // VmRSS
	hwmKiB  int64 // VmHWM: the peak RSS since the process started
	threads int
	fds     int
}

// readProc reads /proc/PID/status and counts /proc/PID/fd.
func readProc(pid int) (procStat, error) {
	var s procStat
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		key, rest, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		fields := bytes.Fields(rest)
		if len(fields) == 0 {
			continue
		}
		n, err := strconv.ParseInt(string(fields[0]), 10, 64)
		if err != nil {
			continue
		}
		switch string(key) {
		case "VmRSS":
			s.rssKiB = n
		case "VmHWM":
			s.hwmKiB = n
		case "Threads":
			s.threads = int(n)
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return s, err
	}
	s.fds = len(fds)
	return s, nil
}

// mib spells KiB as MiB with one decimal.
func mib(kib int64) string {
	return fmt.Sprintf("%.1f MiB", float64(kib)/1024)
}

// A sampler reads a process's RSS every interval and keeps the peak, for
// a scenario shorter than the process's life (VmHWM covers all of it).
type sampler struct {
	pid  int
	stop chan struct{}
	done sync.WaitGroup

	mu      sync.Mutex
	peakKiB int64
	samples int
}

// startSampler samples pid every interval until Stop.
func startSampler(pid int, interval time.Duration) *sampler {
	s := &sampler{pid: pid, stop: make(chan struct{})}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *sampler) sample() {
	st, err := readProc(s.pid)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.peakKiB = max(s.peakKiB, st.rssKiB)
	s.samples++
	s.mu.Unlock()
}

// Stop takes a last sample and returns the peak RSS and the number of
// samples taken.
func (s *sampler) Stop() (peakKiB int64, samples int) {
	close(s.stop)
	s.done.Wait()
	s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peakKiB, s.samples
}
