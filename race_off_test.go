//go:build !race

package protorest_test

const raceEnabled = false
