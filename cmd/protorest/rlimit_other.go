//go:build !unix

package main

// defaultMaxConnections is the default of --max-connections where there
// is no open-file limit to read (Windows, whose sockets are not counted
// against one): the cap.
func defaultMaxConnections() int { return maxConnectionsCap }
