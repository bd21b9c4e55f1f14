package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A process is a contender or the backend, running.
type process struct {
	name string
	cmd  *exec.Cmd
	log  *os.File
	done chan error
}

// start runs args with its output in logPath.
func start(name string, args []string, logPath string) (*process, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, log: log, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	return p, nil
}

// pid is the process's id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// stop sends SIGTERM, and SIGKILL if the process has not exited in 10 s.
func (p *process) stop() error {
	defer p.log.Close()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		return err
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		return fmt.Errorf("%s did not exit on SIGTERM", p.name)
	}
}

// waitReady polls url until it answers 200, for at most 30 s.
func (p *process) waitReady(url string) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer client.CloseIdleConnections()
	var last string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-p.done:
			p.done <- err
			return fmt.Errorf("%s exited (%v): %s", p.name, err, tail(p.log.Name()))
		default:
		}
		res, err := client.Get(url)
		if err != nil {
			last = err.Error()
			continue
		}
		res.Body.Close()
		if res.StatusCode == http.StatusOK {
			return nil
		}
		last = res.Status
	}
	return fmt.Errorf("%s: %s not ready in 30 s (%s): %s", p.name, url, last, tail(p.log.Name()))
}

// tail is the last lines of a log.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(len(lines)-5, 0):], "\n")
}

// clockTicks is the unit of utime and stime in /proc/PID/stat: 1/100 s
// (USER_HZ, 100 on every Linux architecture Go supports).
const clockTicks = 100

// cpuTime is the CPU time a process has used, user and system, from
// /proc/PID/stat.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// the fields after it start at the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("unreadable /proc/PID/stat")
	}
	fields := strings.Fields(string(b[i+1:]))
	// Fields 3 onwards: utime is field 14, stime 15.
	if len(fields) < 13 {
		return 0, errors.New("short /proc/PID/stat")
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// resetPeakRSS resets a process's VmHWM to its current RSS
// (/proc/PID/clear_refs, Linux 4.0 and later).
func resetPeakRSS(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// peakRSS is a process's VmHWM, in KiB.
func peakRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, errors.New("no VmHWM in /proc/PID/status")
}

// loadAverage is the machine's load average over the last minute.
func loadAverage() float64 {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
