//go:build race

package protorest_test

// raceEnabled: the race detector is on, and sync.Pool drops a quarter of
// what is put in it, so the allocation bounds of the hostile shapes do not
// hold and are not checked.
const raceEnabled = true
