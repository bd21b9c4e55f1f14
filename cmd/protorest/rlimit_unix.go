//go:build unix

package main

import "syscall"

// defaultMaxConnections is the default of --max-connections from the
// process's open-file limit (which the Go runtime raises to the hard limit
// at start on Linux and macOS).
func defaultMaxConnections() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 1024 - fdHeadroom
	}
	return maxConnectionsFor(rl.Cur)
}
