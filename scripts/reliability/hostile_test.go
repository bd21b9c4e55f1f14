package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestHostileSummary(t *testing.T) {
	t.Parallel()
	out := "=== RUN   TestHostile\n    hostile_test.go:88: hostile summary: shapes=101 in-process=101 remote=101 statuses=400:70,404:9 panics=0 upstream-calls-on-NC=0\n--- PASS: TestHostile (1.20s)\n"
	got, ok, err := hostileSummary(strings.NewReader(out))
	if err != nil || !ok {
		t.Fatalf("ok %v, err %v", ok, err)
	}
	want := [][2]string{{"shapes", "101"}, {"in-process", "101"}, {"remote", "101"}, {"statuses", "400:70,404:9"}, {"panics", "0"}, {"upstream-calls-on-NC", "0"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, ok, err := hostileSummary(strings.NewReader("testing: warning: no tests to run\nPASS\n")); ok || err != nil {
		t.Errorf("no summary line: ok %v, err %v", ok, err)
	}
	if _, _, err := hostileSummary(strings.NewReader("hostile summary: shapes 3\n")); err == nil {
		t.Error("no error for a field that is not key=value")
	}
}
