package main

import (
	"reflect"
	"testing"
)

// An excerpt of protorest serve --help as it wraps: help on the line of
// the name or the next, a default over two lines, a bool without ARG, a
// help word starting "default".
const helpExcerpt = `Usage: protorest serve --upstream ADDR [flags]

Serving:
  --listen ADDR            address to serve HTTP on
                           default :8080, $PROTOREST_LISTEN

Limits:
  --max-body-size SIZE     largest request body, per message for a client
                           stream: 413 beyond; 0 for no limit
                           default 4MiB, $PROTOREST_MAX_BODY_SIZE
  --max-metadata-bytes SIZE
                           largest metadata forwarded to the upstream: 431
                           beyond
                           default 8KiB, $PROTOREST_MAX_METADATA_BYTES
  --max-connections N      most client connections held open; 0 for no limit
                           default the open-file limit less 256, at most 10000
                           (here 10000), $PROTOREST_MAX_CONNECTIONS
  --strict                 the default behaviour, made strict
                           default false, $PROTOREST_STRICT

Headers:
  --incoming-header NAME   pass it
                           default none, $PROTOREST_INCOMING_HEADER
`

func TestParseHelpGroup(t *testing.T) {
	t.Parallel()
	got, err := parseHelpGroup(helpExcerpt, "Limits")
	if err != nil {
		t.Fatal(err)
	}
	want := []helpFlag{
		{name: "max-body-size", arg: "SIZE", help: "largest request body, per message for a client stream: 413 beyond; 0 for no limit", def: "4MiB"},
		{name: "max-metadata-bytes", arg: "SIZE", help: "largest metadata forwarded to the upstream: 431 beyond", def: "8KiB"},
		{name: "max-connections", arg: "N", help: "most client connections held open; 0 for no limit", def: "the open-file limit less 256, at most 10000 (here 10000)"},
		{name: "strict", help: "the default behaviour, made strict", def: "false"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
}

func TestParseHelpGroupMissing(t *testing.T) {
	t.Parallel()
	if _, err := parseHelpGroup(helpExcerpt, "Nonexistent"); err == nil {
		t.Error("no error for a group that is not there")
	}
	if _, err := parseHelpGroup("Limits:\n  --x N  help without a default\n", "Limits"); err == nil {
		t.Error("no error for a flag without its default line")
	}
}

// TestIntOf: a flag's default as a number, a computed one by the value
// serve --help gives it here.
func TestIntOf(t *testing.T) {
	for def, want := range map[string]int{
		"100": 100,
		"1/8 of --upstream-connections × --upstream-max-streams (here 100)": 100,
		"the open-file limit less 256, at most 10000 (here 10000)":          10000,
	} {
		if got, err := intOf(helpFlag{name: "f", def: def}); err != nil || got != want {
			t.Errorf("intOf(%q) = %d, %v; want %d", def, got, err, want)
		}
	}
	if _, err := intOf(helpFlag{name: "f", def: "a quarter of GOMEMLIMIT"}); err == nil {
		t.Error("intOf of a default with no number: no error")
	}
}
