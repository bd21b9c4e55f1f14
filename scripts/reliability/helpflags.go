package main

import (
	"bufio"
	"fmt"
	"strings"
)

// A helpFlag is one flag as protorest serve --help describes it.
type helpFlag struct {
	name string // without dashes
	arg  string // SIZE, DUR, N; "" for a bool
	help string
	def  string // the default, as --help says it
}

// parseHelpGroup reads the flags of one group ("Limits") from the text
// of serve --help: a heading "Group:", then for each flag a line
// "  --name ARG  help…" (the help on the next line when the name is
// long), indented continuation lines, the last of which end
// "default DEFAULT, $PROTOREST_NAME".
func parseHelpGroup(help, group string) ([]helpFlag, error) {
	var (
		flags []helpFlag
		text  []string // the current flag's help and default lines
		in    bool
	)
	finish := func() error {
		if len(flags) == 0 {
			return nil
		}
		f := &flags[len(flags)-1]
		all := strings.Join(text, " ")
		env := ", $PROTOREST_" + strings.ToUpper(strings.ReplaceAll(f.name, "-", "_"))
		body, ok := strings.CutSuffix(all, env)
		i := strings.LastIndex(body, "default ")
		if !ok || i < 0 {
			return fmt.Errorf("--%s: no %q at the end of its help: %q", f.name, "default …"+env, all)
		}
		f.help, f.def = strings.TrimSpace(body[:i]), body[i+len("default "):]
		text = nil
		return nil
	}
	sc := bufio.NewScanner(strings.NewReader(help))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == group+":":
			in = true
		case !in:
		case line == "" || !strings.HasPrefix(line, " "):
			if err := finish(); err != nil {
				return nil, err
			}
			if len(flags) > 0 {
				return flags, nil
			}
		case strings.HasPrefix(line, "  --"):
			if err := finish(); err != nil {
				return nil, err
			}
			fields := strings.Fields(line)
			f := helpFlag{name: strings.TrimPrefix(fields[0], "--")}
			rest := fields[1:]
			if len(rest) > 0 && rest[0] == strings.ToUpper(rest[0]) && strings.ToUpper(rest[0]) != strings.ToLower(rest[0]) {
				f.arg, rest = rest[0], rest[1:]
			}
			flags = append(flags, f)
			if len(rest) > 0 {
				text = append(text, strings.Join(rest, " "))
			}
		default:
			text = append(text, strings.TrimSpace(line))
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if len(flags) == 0 {
		return nil, fmt.Errorf("no %q group in serve --help", group)
	}
	return flags, nil
}
