package httprule

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Shorthands for building expected templates.
var (
	star = Segment{Kind: Wildcard}
	deep = Segment{Kind: DeepWildcard}
)

func lit(s string) Segment { return Segment{Kind: Literal, Value: s} }

func segs(s ...Segment) []Segment { return s }

func vars(v ...Variable) []Variable { return v }

// bind returns a Variable for the dotted path covering Segments[start:end].
func bind(path string, start, end int, explicit bool) Variable {
	return Variable{FieldPath: strings.Split(path, "."), Start: start, End: end, Explicit: explicit}
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Template
	}{
		{"root", "/", Template{}},
		{"literals", "/v1/probes", Template{Segments: segs(lit("v1"), lit("probes"))}},
		{"implicit variable", "/v1/{name}", Template{
			Segments:  segs(lit("v1"), star),
			Variables: vars(bind("name", 1, 2, false)),
		}},
		{"explicit star", "/v1/{name=*}", Template{
			Segments:  segs(lit("v1"), star),
			Variables: vars(bind("name", 1, 2, true)),
		}},
		{"multi-segment variable", "/v1/{name=shelves/*/books/*}", Template{
			Segments:  segs(lit("v1"), lit("shelves"), star, lit("books"), star),
			Variables: vars(bind("name", 1, 5, true)),
		}},
		{"nested field paths", "/v1/nested/{inner.s}/{inner.i}", Template{
			Segments:  segs(lit("v1"), lit("nested"), star, star),
			Variables: vars(bind("inner.s", 2, 3, false), bind("inner.i", 3, 4, false)),
		}},
		{"prefix and leaf paths", "/v1/{a}/{a.b}", Template{
			Segments:  segs(lit("v1"), star, star),
			Variables: vars(bind("a", 1, 2, false), bind("a.b", 2, 3, false)),
		}},
		{"ident characters", "/{Field_1.sub_2}", Template{
			Segments:  segs(star),
			Variables: vars(bind("Field_1.sub_2", 0, 1, false)),
		}},
		{"verb after variable", "/v1/{name=probes/*}:archive", Template{
			Segments:  segs(lit("v1"), lit("probes"), star),
			Variables: vars(bind("name", 1, 3, true)),
			Verb:      "archive",
		}},
		{"verb after literal", "/v1/probes:search", Template{
			Segments: segs(lit("v1"), lit("probes")),
			Verb:     "search",
		}},
		{"verb after star", "/a/*:go", Template{Segments: segs(lit("a"), star), Verb: "go"}},
		{"verb after deep", "/a/**:go", Template{Segments: segs(lit("a"), deep), Verb: "go"}},
		{"verb with colons", "/v1/{uuid}:custom:custom", Template{
			Segments:  segs(lit("v1"), star),
			Variables: vars(bind("uuid", 1, 2, false)),
			Verb:      "custom:custom",
		}},
		{"verb with three parts", "/v1/x:a:b:c", Template{Segments: segs(lit("v1"), lit("x")), Verb: "a:b:c"}},
		{"deep at root", "/**", Template{Segments: segs(deep)}},
		{"deep variable", "/v1/{name=**}", Template{
			Segments:  segs(lit("v1"), deep),
			Variables: vars(bind("name", 1, 2, true)),
		}},
		{"literals after deep", "/a/**/b/c", Template{Segments: segs(lit("a"), deep, lit("b"), lit("c"))}},
		{"deep inside variable with suffix", "/a/{x=b/*/**/y/z}/foo", Template{
			Segments:  segs(lit("a"), lit("b"), star, deep, lit("y"), lit("z"), lit("foo")),
			Variables: vars(bind("x", 1, 6, true)),
		}},
		{"deep variable then literal", "/v1/{name=tree/**}/meta", Template{
			Segments:  segs(lit("v1"), lit("tree"), deep, lit("meta")),
			Variables: vars(bind("name", 1, 3, true)),
		}},
		{"literal-only variable after deep", "/a/**/{y=c}", Template{
			Segments:  segs(lit("a"), deep, lit("c")),
			Variables: vars(bind("y", 2, 3, true)),
		}},
		{"equals in literal", "/a=b/{x=c=d}", Template{
			Segments:  segs(lit("a=b"), lit("c=d")),
			Variables: vars(bind("x", 1, 2, true)),
		}},
		{"other bytes in literal", "/v1/a.b-c~d%2F/\xff", Template{Segments: segs(lit("v1"), lit("a.b-c~d%2F"), lit("\xff"))}},

		// What grpc-gateway serves beyond http.proto (see the package doc).
		{"colon in a segment before the last", "/v1/a:b/c", Template{Segments: segs(lit("v1"), lit("a:b"), lit("c"))}},
		{"colons ending a segment before the last", "/a:/:b/c:go", Template{Segments: segs(lit("a:"), lit(":b"), lit("c")), Verb: "go"}},
		{"colon in a variable's literal", "/{x=a:b}:go", Template{
			Segments:  segs(lit("a:b")),
			Variables: vars(bind("x", 0, 1, true)),
			Verb:      "go",
		}},
		{"star in literals", "/a*/*b/***", Template{Segments: segs(lit("a*"), lit("*b"), lit("***"))}},
		{"star in a variable's literal", "/{x=a*}", Template{Segments: segs(lit("a*")), Variables: vars(bind("x", 0, 1, true))}},
		{"star in a verb", "/a:*", Template{Segments: segs(lit("a")), Verb: "*"}},
		{"star after deep", "/a/**/*", Template{Segments: segs(lit("a"), deep, star)}},
		{"literal and star after deep", "/a/**/foo/*", Template{Segments: segs(lit("a"), deep, lit("foo"), star)}},
		{"variable after deep variable", "/v1/{a=**}/{b}", Template{
			Segments:  segs(lit("v1"), deep, star),
			Variables: vars(bind("a", 1, 2, true), bind("b", 2, 3, false)),
		}},
		{"explicit variable after deep", "/a/{x=b/**}/{y=*}", Template{
			Segments:  segs(lit("a"), lit("b"), deep, star),
			Variables: vars(bind("x", 1, 3, true), bind("y", 3, 4, true)),
		}},
		{"star after deep in a variable", "/{x=**/*}", Template{Segments: segs(deep, star), Variables: vars(bind("x", 0, 2, true))}},
		{"a field bound twice", "/{a}/{a}", Template{
			Segments:  segs(star, star),
			Variables: vars(bind("a", 0, 1, false), bind("a", 1, 2, false)),
		}},

		// Verbs as grpc-gateway's parser splits them (see splitVerb): after
		// a variable at the first colon, else at the last. A last literal
		// and its verb are one text, split at its first inner colon.
		{"verb with an empty part after a variable", "/{x}::v", Template{
			Segments: segs(star), Variables: vars(bind("x", 0, 1, false)), Verb: ":v",
		}},
		{"verb with an empty last part after a variable", "/{x}:a:", Template{
			Segments: segs(star), Variables: vars(bind("x", 0, 1, false)), Verb: "a:",
		}},
		{"verb of a colon after a variable", "/{x=a}::", Template{
			Segments: segs(lit("a")), Variables: vars(bind("x", 0, 1, true)), Verb: ":",
		}},
		{"literal ending in a colon, then a verb", "/v1/x::a", Template{Segments: segs(lit("v1"), lit("x")), Verb: ":a"}},
		{"literal ending in a colon", "/a::", Template{Segments: segs(lit("a:"))}},
		{"literal and a verb ending in a colon", "/v1/x:a::", Template{Segments: segs(lit("v1"), lit("x")), Verb: "a:"}},
		{"literal starting with its only colon", "/:a:", Template{Segments: segs(lit(":a"))}},
		{"literal of a colon", "/::", Template{Segments: segs(lit(":"))}},
		{"literal of a colon, then a verb", "/::v", Template{Segments: segs(lit(":")), Verb: "v"}},
		{"star and a colon are a literal", "/a/*:b:c", Template{Segments: segs(lit("a"), lit("*")), Verb: "b:c"}},
		{"star before an empty verb is a literal", "/a/*:c:", Template{Segments: segs(lit("a"), lit("*")), Verb: "c"}},
		{"deep and a colon are a literal", "/**:b:c", Template{Segments: segs(lit("**")), Verb: "b:c"}},
		{"root with a verb", "/:verb", Template{Verb: "verb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("Parse(%q)\n got %+v\nwant %+v", tt.in, *got, tt.want)
			}
			// Parse keeps every distinction the grammar makes, so the
			// canonical form of a valid template is the template itself.
			if s := got.String(); s != tt.in {
				t.Errorf("Parse(%q).String() = %q", tt.in, s)
			}
		})
	}
}

func TestParseError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		column int
		msg    string // a substring of SyntaxError.Msg
	}{
		// R10: well-formedness.
		{"", 1, `expected "/"`},
		{"a/b", 1, `expected "/"`},
		{"/a/", 4, "empty segment"},
		{"/a//b", 4, "empty segment"},
		{"/a/:verb", 4, "empty segment"},
		{"/}", 2, `unexpected "}"`},
		{"/a}", 3, `unexpected "}"`},

		// R11: variables.
		{"/{}", 3, "expected field name"},
		{"/book/{", 8, "expected field name"},
		{"/book/{x", 9, `expected "}"`},
		{"/{x=a", 6, `expected "}"`},
		{"/{x=}", 5, "empty segment"},
		{"/{x=a/}", 7, "empty segment"},
		{"/{x=a//b}", 7, "empty segment"},
		{"/{var=a/{nested=b}}", 9, "nested variable"},
		{"/{x=a{y}}", 6, "nested variable"},
		{"/a{x}", 3, "variable must cover a whole segment"},
		{"/{x}a", 5, "variable must cover a whole segment"},
		{"/a/{x}b", 7, "variable must cover a whole segment"},
		{"/a:{x}", 4, "variable must cover a whole segment"},
		{"/{x}{y}", 5, "variable must cover a whole segment"},

		// Field paths.
		{"/{a..b}", 5, "expected field name"},
		{"/{.a}", 3, "expected field name"},
		{"/{a.}", 5, "expected field name"},
		{"/{=*}", 3, "expected field name"},
		{"/{a-b}", 4, `unexpected "-" in field path`},
		{"/{a b}", 4, `unexpected " " in field path`},

		// R12: "**" placement. grpc-gateway refuses a second "**" too
		// (runtime.NewPattern: "pushM appears twice").
		{"/a/**/**", 7, `only one "**" may appear`},
		{"/{x=**}/a/**", 11, `only one "**" may appear`},

		// R13: verbs. A colon is a verb's only in the last segment; one
		// before a "/", "{" or "}" belongs to a segment, which grpc-gateway
		// refuses too after a variable.
		{"/{x}:a:b/c", 5, "variable must cover a whole segment"},
		{"/a:{b}", 4, "variable must cover a whole segment"},
		{"/a:b}", 5, `unexpected "}"`},
		{"/{x:a}", 4, `unexpected ":" in field path`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want error", tt.in, got)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %T, want *SyntaxError", tt.in, err)
			}
			if se.Template != tt.in || se.Column != tt.column || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("Parse(%q) = %+v, want column %d, message containing %q", tt.in, *se, tt.column, tt.msg)
			}
		})
	}
}

// TestParseLenient: templates outside the grammar that grpc-gateway
// serves (its parser read them so; see parse) parse as it reads them, and
// String gives that reading in the grammar. Others it refuses fail.
func TestParseLenient(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"//":       "/*",
		"/a//":     "/a/*",
		"/a///b":   "/a/*/b",
		"/a/*//":   "/a/*/*",
		"/{x=/}":   "/{x=*}",
		"/{x=a//}": "/{x=a/*}",
		"//:go":    "/*:go",
		"/a:":      "/a",
		"/{x}:":    "/{x}",
		"/*:":      "/*",
		"/a/**:":   "/a/**",
		"/v1/x:a:": "/v1/x:a",
		"/:":       "/",
		"/a//:v":   "/a/*:v",
	} {
		got, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if s := got.String(); s != want {
			t.Errorf("Parse(%q).String() = %q, want %q", in, s, want)
		}
		if _, err := parse(in, false); err == nil {
			t.Errorf("parse(%q) by the grammar succeeded", in)
		}
	}
	// grpc-gateway refuses these too; the message is the grammar's.
	for in, want := range map[string]string{
		"/a//b":    "column 4: empty segment",
		"/a/":      "column 4: empty segment",
		"/{x=a/}":  "column 7: empty segment",
		"/{x=//}":  "column 5: empty segment",
		"/a/:":     "column 4: empty segment",
		"/a/:v":    "column 4: empty segment",
		"/a/**/**": `column 7: only one "**" may appear`,
		"/a//::go": "column 4: empty segment",
		"/a//:b:c": "column 4: empty segment",
	} {
		if _, err := Parse(in); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("Parse(%q) error %v, want one ending %q", in, err, want)
		}
	}
}

func TestSyntaxErrorText(t *testing.T) {
	t.Parallel()
	_, err := Parse("/a//b")
	const want = `template "/a//b": syntax error at column 4: empty segment`
	if err == nil || err.Error() != want {
		t.Errorf("Parse(%q) error = %v, want %s", "/a//b", err, want)
	}
}

// TestTemplateString covers templates that Parse does not produce, to pin
// down the canonical form String chooses for them.
func TestTemplateString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		t    Template
		want string
	}{
		{"zero", Template{}, "/"},
		{"implicit single wildcard", Template{
			Segments:  segs(lit("v1"), star),
			Variables: vars(bind("name", 1, 2, false)),
		}, "/v1/{name}"},
		{"implicit multi-segment", Template{
			Segments:  segs(lit("a"), star),
			Variables: vars(bind("x", 0, 2, false)),
		}, "/{x=a/*}"},
		{"implicit deep", Template{
			Segments:  segs(deep),
			Variables: vars(bind("x", 0, 1, false)),
		}, "/{x=**}"},
		{"implicit literal", Template{
			Segments:  segs(lit("a")),
			Variables: vars(bind("x.y", 0, 1, false)),
		}, "/{x.y=a}"},
		{"verb", Template{Segments: segs(lit("v1"), lit("x")), Verb: "a:b"}, "/v1/x:a:b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.t.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDeepIndex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"/", -1},
		{"/a/*", -1},
		{"/**", 0},
		{"/v1/{name=tree/**}/meta", 2},
	}
	for _, tt := range tests {
		tmpl, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		if got := tmpl.DeepIndex(); got != tt.want {
			t.Errorf("Parse(%q).DeepIndex() = %d, want %d", tt.in, got, tt.want)
		}
	}
}
