package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A flagSpec is one line of a command's flag table: parsing, the
// environment variable and the --help text all come from it.
type flagSpec struct {
	group  string     // heading in --help
	name   string     // without dashes
	arg    string     // what the value is, for --help ("" for a bool)
	help   string     // one sentence or two; wrapped by --help
	value  flag.Value // bound to the config; its String() before parsing is the default
	def    string     // the default as --help says it, when value.String() does not say it well
	repeat bool       // may be given more than once; a comma-separated list in the environment
}

// envPrefix starts the environment variable of every flag.
const envPrefix = "PROTOREST_"

// envName is the environment variable of a flag: --upstream-ca is
// PROTOREST_UPSTREAM_CA.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// defaultText is the default as --help writes it.
func (f *flagSpec) defaultText() string {
	switch {
	case f.def != "":
		return f.def
	case f.value.String() != "":
		return f.value.String()
	}
	return "none"
}

// The values of the flag table. Each is bound to a field of the config;
// String gives the current value, which before parsing is the default.

type stringValue struct{ p *string }

func (v stringValue) String() string     { return *v.p }
func (v stringValue) Set(s string) error { *v.p = s; return nil }

type boolValue struct{ p *bool }

func (v boolValue) String() string { return strconv.FormatBool(*v.p) }
func (v boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	*v.p = b
	return nil
}
func (v boolValue) IsBoolFlag() bool { return true }

type durationValue struct{ p *time.Duration }

func (v durationValue) String() string { return v.p.String() }
func (v durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as 500ms, 10s or 1m")
	}
	*v.p = d
	return nil
}

type intValue struct{ p *int }

func (v intValue) String() string { return strconv.Itoa(*v.p) }
func (v intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want an integer")
	}
	*v.p = n
	return nil
}

// listValue is a repeatable flag: each occurrence adds one value.
type listValue struct{ p *[]string }

func (v listValue) String() string { return strings.Join(*v.p, ",") }
func (v listValue) Set(s string) error {
	*v.p = append(*v.p, s)
	return nil
}

// choiceValue is a string from a fixed set.
type choiceValue struct {
	p       *string
	choices []string
}

func (v choiceValue) String() string { return *v.p }
func (v choiceValue) Set(s string) error {
	if !slices.Contains(v.choices, s) {
		return fmt.Errorf("want %s", orList(v.choices))
	}
	*v.p = s
	return nil
}

// orList spells a, b or c.
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// sizeValue is a number of bytes: 4194304, 4MiB, 512KiB, 1GiB (or
// decimal kB, MB, GB).
type sizeValue struct{ p *int64 }

func (v sizeValue) String() string { return formatSize(*v.p) }
func (v sizeValue) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

var sizeUnits = []struct {
	suffix string
	factor int64
}{
	{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}, {"KB", 1e3}, {"B", 1},
}

func parseSize(s string) (int64, error) {
	num, factor := s, int64(1)
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			num, factor = n, u.factor
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n < 0 || n > (1<<62)/factor {
		return 0, fmt.Errorf("want a size in bytes such as 1048576, 512KiB or 4MiB")
	}
	return n * factor, nil
}

// formatSize writes n with the largest binary unit that divides it.
func formatSize(n int64) string {
	for _, u := range sizeUnits[:3] {
		if n >= u.factor && n%u.factor == 0 {
			return strconv.FormatInt(n/u.factor, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// parseCommandLine defines specs in fset and parses args, then gives every
// flag that args did not set its environment variable's value, if it has
// one (lookupEnv is os.LookupEnv outside tests). A flag on the command
// line wins over its variable. A repeatable flag's variable holds a
// comma-separated list. A bad value, on the command line or in the
// environment, is a usageError naming the flag or the variable.
func parseCommandLine(fset *flag.FlagSet, specs []flagSpec, args []string, usage string, lookupEnv func(string) (string, bool), stdout io.Writer) error {
	for i := range specs {
		fset.Var(specs[i].value, specs[i].name, "")
	}
	if err := parseFlags(fset, args, usage, stdout); err != nil {
		return err
	}
	onCommandLine := map[string]bool{}
	fset.Visit(func(f *flag.Flag) { onCommandLine[f.Name] = true })
	for _, f := range specs {
		if onCommandLine[f.name] {
			continue
		}
		env := envName(f.name)
		v, ok := lookupEnv(env)
		if !ok {
			continue
		}
		values := []string{v}
		if f.repeat {
			values = splitList(v)
		}
		for _, v := range values {
			if err := f.value.Set(v); err != nil {
				return usagef("%s=%q: %v (the environment variable of --%s)", env, v, err, f.name)
			}
		}
	}
	return nil
}

// splitList splits a comma-separated list, dropping empty items and the
// spaces around each.
func splitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// helpColumn is where the help text of each flag starts; helpWidth is the
// width --help keeps to.
const (
	helpColumn = 27
	helpWidth  = 80
)

// flagHelp writes the flag table as --help shows it: by group, in the
// table's order, each flag with its help text, then its default and its
// environment variable.
func flagHelp(specs []flagSpec) string {
	var b strings.Builder
	group := ""
	for i := range specs {
		f := &specs[i]
		if f.group != group {
			group = f.group
			fmt.Fprintf(&b, "\n%s:\n", group)
		}
		head := "  --" + f.name
		if f.arg != "" {
			head += " " + f.arg
		}
		text := f.help
		if f.repeat {
			text += " (repeatable)"
		}
		lines := wrap(text, helpWidth-helpColumn)
		lines = append(lines, wrap("default "+f.defaultText()+", $"+envName(f.name), helpWidth-helpColumn)...)
		if len(head) > helpColumn-2 {
			b.WriteString(head + "\n")
			head = ""
		}
		for _, l := range lines {
			fmt.Fprintf(&b, "%-*s%s\n", helpColumn, head, l)
			head = ""
		}
	}
	return b.String()
}

// wrap breaks text into lines of at most width columns, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}
