package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A child is a process this program started and stops.
type child struct {
	cmd    *exec.Cmd
	ready  chan struct{} // closed when its stderr has shown readyLine
	exited chan struct{} // closed when it has exited
}

// startChild starts bin with args, stdin and stdout as given (nil: none).
// Its stderr is appended to logDir/NAME.log (its stdout too when stdout
// is nil), or discarded when logDir is "", and watched for a line that
// contains readyLine ("": none), which closes c.ready. The child is
// killed if this program dies without stopping it (Pdeathsig), so that
// the runner's SIGKILL leaves no orphan behind.
func startChild(name, logDir, bin string, args []string, stdin io.Reader, stdout io.Writer, readyLine string) (*child, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdin = stdin
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	log := io.Discard
	if logDir != "" {
		f, err := os.OpenFile(filepath.Join(logDir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		log = f
		cmd.Stdout = f
	}
	if stdout != nil {
		cmd.Stdout = stdout
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c := &child{cmd: cmd, ready: make(chan struct{}), exited: make(chan struct{})}
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		c.watch(stderr, log, readyLine)
	}()
	go func() {
		<-watched // Wait closes the pipe: read it all first
		_ = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// watch copies the child's stderr to log, line by line, and closes
// c.ready at the first line that contains readyLine.
func (c *child) watch(stderr io.Reader, log io.Writer, readyLine string) {
	if f, ok := log.(*os.File); ok {
		defer f.Close()
	}
	lines := bufio.NewScanner(stderr)
	lines.Buffer(make([]byte, 0, 64<<10), 1<<20)
	seen := false
	for lines.Scan() {
		fmt.Fprintln(log, lines.Text())
		if !seen && readyLine != "" && strings.Contains(lines.Text(), readyLine) {
			seen = true
			close(c.ready)
		}
	}
	_, _ = io.Copy(log, stderr) // a line over the scanner's limit: the rest as it is
}

// errExited is waitReady's error when the child exits first.
var errExited = errors.New("exited")

// stop sends SIGTERM, and SIGKILL after grace if it is still running,
// and waits for it to exit.
func (c *child) stop(grace time.Duration) {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(grace):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}
