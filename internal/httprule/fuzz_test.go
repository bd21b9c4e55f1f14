package httprule

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// grammar is the context-free part of the grammar as a regular expression,
// an oracle independent of the parser. Parse also rejects what grammar
// matches when "**" appears twice.
var grammar = func() *regexp.Regexp {
	const (
		lit  = `[^/:{}]+` // a verb's after a LastText's last colon
		text = `[^/{}]+`  // an earlier segment's, and a variable's: ":" allowed
		segs = text + `(?:/` + text + `)*`
		path = `[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*`
		vr   = `\{` + path + `(?:=` + segs + `)?\}`
		// LastText: no colon; a last colon inside; or an empty verb
		// after a literal that ends in ":", starts with its only ":", or
		// is "*" or "**" before its only ":".
		last = lit + `|` + text + `:` + lit + `|(?:` + text + `)?::|:(?:` + lit + `)?:|\*\*?:(?:` + lit + `)?:`
	)
	return regexp.MustCompile(`^(?:/(?::` + lit + `)?|(?:/(?:` + text + `|` + vr + `))*/(?:` + vr + `(?::` + text + `)?|` + last + `))$`)
}()

// FuzzParse checks that Parse never panics, that every template it
// accepts round-trips through String, and that it accepts outside the
// grammar only what grpc-gateway reads (the lenient parse): then String
// is in the grammar. The checked-in corpus lives in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		// Valid.
		"/", "/v1/{name}", "/v1/{name=*}", "/v1/{name=shelves/*/books/*}",
		"/v1/{uuid}:custom:custom", "/a/{x=b/*/**/y/z}/foo", "/v1/{name=tree/**}/meta",
		"/v1/{name=probes/*}:archive", "/v1/probes:search", "/v1/nested/{inner.s}/{inner.i}",
		"/**", "/a/**:go", "/a/**/{y=c}", "/a=b/{x=c=d}",
		"/a/**/*", "/a/{x=b/**}/{y}", "/{a}/{a}", "/***", "/a:b/c", "/{x=a:b}:go", "/a:*",
		"/{x}::v", "/v1/x::a", "/a::", "/:verb", "/:a:", "/::v", "/a/*:b:c", "/a/*:c:", "/v1/x:a::",
		// Read as grpc-gateway reads them.
		"//", "/a//", "/a///b", "/{x=/}", "/*:", "/{x}:", "/v1/x:a:", "/:",
		// Invalid.
		"", "a/b", "/a/", "/a//b", "/{}", "/a/:verb", "/book/{",
		"/a{x}", "/{x}a", "/{var=a/{nested=b}}", "/a/**/**",
		"/{a..b}", "/{.a}", "/{x}:a:b/c", "/a/:v", "/a//::go", "/a//:b:c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tmpl, err := Parse(s)
		matched := grammar.MatchString(s)
		lenient := err == nil && !matched
		if lenient {
			if _, serr := parse(s, false); serr == nil {
				t.Fatalf("Parse(%q) succeeded by the grammar; the grammar does not match it", s)
			}
		} else if err != nil && matched && !strings.Contains(err.Error(), `"**"`) {
			t.Fatalf("Parse(%q): %v; the grammar matches it", s, err)
		}
		if err != nil {
			se, ok := err.(*SyntaxError)
			if !ok {
				t.Fatalf("Parse(%q) error %T, want *SyntaxError", s, err)
			}
			if se.Column < 1 || se.Column > len(s)+1 || se.Msg == "" {
				t.Fatalf("Parse(%q): bad error %+v", s, *se)
			}
			return
		}
		str := tmpl.String()
		again, err := Parse(str)
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q, which does not parse: %v", s, str, err)
		}
		if !reflect.DeepEqual(tmpl, again) {
			t.Fatalf("Parse(%q) = %+v\nParse(%q) = %+v", s, *tmpl, str, *again)
		}
		if str2 := again.String(); str2 != str {
			t.Fatalf("String not idempotent: %q, then %q", str, str2)
		}
		switch {
		case lenient && !grammar.MatchString(str):
			t.Fatalf("Parse(%q).String() = %q, outside the grammar", s, str)
		case !lenient && str != s:
			// Parse records every distinction the grammar makes.
			t.Fatalf("Parse(%q).String() = %q", s, str)
		}
		checkInvariants(t, s, tmpl)
	})
}

// checkInvariants checks the structural promises of a parsed Template.
func checkInvariants(t *testing.T, s string, tmpl *Template) {
	t.Helper()
	deep := -1
	for i, seg := range tmpl.Segments {
		switch {
		case seg.Kind == Literal && seg.Value == "":
			t.Fatalf("Parse(%q): empty literal at %d", s, i)
		case seg.Kind != Literal && seg.Value != "":
			t.Fatalf("Parse(%q): non-literal with value at %d", s, i)
		case (seg.Value == "*" || seg.Value == "**") && (i < len(tmpl.Segments)-1 || tmpl.inVariable(i) || tmpl.Verb == ""):
			t.Fatalf("Parse(%q): literal %q at %d is not a last literal with a verb", s, seg.Value, i)
		case deep >= 0 && seg.Kind == DeepWildcard:
			t.Fatalf("Parse(%q): a second \"**\" at %d", s, i)
		case seg.Kind == DeepWildcard:
			deep = i
		}
	}
	if got := tmpl.DeepIndex(); got != deep {
		t.Fatalf("Parse(%q).DeepIndex() = %d, want %d", s, got, deep)
	}
	end := 0
	for _, v := range tmpl.Variables {
		if v.Start < end || v.End <= v.Start || v.End > len(tmpl.Segments) || len(v.FieldPath) == 0 {
			t.Fatalf("Parse(%q): bad variable %+v", s, v)
		}
		end = v.End
	}
}
