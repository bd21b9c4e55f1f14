package protorest_test

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestMarkdownLinks checks every relative link and image of the
// repository's Markdown files: the file or directory it names exists in
// the repository, and its anchor (#section), if it has one and names a
// Markdown file, is a heading of that file as GitHub makes heading
// anchors, or an HTML id in it. Links with a scheme (https:, mailto:) are
// not followed.
func TestMarkdownLinks(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	files := markdownFiles(t, root)
	if len(files) == 0 {
		t.Fatal("no Markdown files found")
	}
	c := newLinkChecker(root)
	for _, f := range files {
		for _, err := range c.check(f) {
			t.Error(err)
		}
	}
}

// TestMarkdownLinkChecker shows that the checker finds what it is for: a
// missing file, a missing anchor in the same file or another, a link out
// of the repository, and nothing else.
func TestMarkdownLinkChecker(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/page.md", "# Page\n\n## Routing (`internal/route`, BenchmarkMatch)\n\n## Limits\n\n## Limits\n\n<a id=\"kept\"></a>\n")
	write("docs/chart.png", "")
	write("README.md", strings.Join([]string{
		"# Title",
		"## Use it: a *library*",
		"[ok](docs/page.md) [ok](docs/page.md#limits) [ok](docs/page.md#limits-1) [ok](./docs/page.md#kept)",
		"[ok](docs/page.md#routing-internalroute-benchmarkmatch) ![ok](docs/chart.png) [ok](docs) [ok](#use-it-a-library)",
		"[ok](https://example.com/x.md#nowhere) [ok](mailto:a@b.c) [ok](/docs/page.md) <img src=\"docs/chart.png\">",
		"`[not a link](missing.md)`",
		"```",
		"[not a link](missing.md)",
		"```",
		"[bad file](docs/missing.md)",
		"[bad anchor](docs/page.md#limits-2)",
		"[bad local anchor](#nowhere)",
		"[bad out](../outside.md)",
		"[bad ref]: docs/gone.png",
		"<a href=\"docs/gone.html\">bad html</a>",
	}, "\n"))
	errs := newLinkChecker(root).check(filepath.Join(root, "README.md"))
	var got []string
	for _, err := range errs {
		got = append(got, err.Error())
	}
	want := []string{
		"README.md:10: docs/missing.md: no such file in the repository",
		"README.md:11: docs/page.md#limits-2: docs/page.md has no anchor \"limits-2\"",
		"README.md:12: #nowhere: README.md has no anchor \"nowhere\"",
		"README.md:13: ../outside.md: outside the repository",
		"README.md:14: docs/gone.png: no such file in the repository",
		"README.md:15: docs/gone.html: no such file in the repository",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestGitHubAnchor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ heading, want string }{
		{"Benchmarks", "benchmarks"},
		{"Routing (`internal/route`, BenchmarkMatch)", "routing-internalroute-benchmarkmatch"},
		{"Issue 5: what moved, and the targets still missed", "issue-5-what-moved-and-the-targets-still-missed"},
		{"1. Code generation", "1-code-generation"},
		{"`ServeMux` options", "servemux-options"},
		{"Streams (BenchmarkServerStream, BenchmarkClientStream)", "streams-benchmarkserverstream-benchmarkclientstream"},
		{"The latest run of scripts/bench.sh (generated)", "the-latest-run-of-scriptsbenchsh-generated"},
		{"See [MIGRATING](MIGRATING.md) — **now**", "see-migrating--now"},
		{"snake_case and Ünïcode", "snake_case-and-ünïcode"},
	} {
		if got := githubAnchor(c.heading); got != c.want {
			t.Errorf("githubAnchor(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}

// FuzzMarkdownLinks: the extractor never panics, and every target it
// returns is text of its line, outside code spans.
func FuzzMarkdownLinks(f *testing.F) {
	for _, s := range []string{
		"[a](b.md#c) ![x](y.png \"t\") [r]: z.md",
		"`code [a](b)` [c](<d e.md>) [f](g(h).md)",
		"```\n[a](b)\n```\n[c](d",
		"<a href=\"x\"><img src='y'>",
		"[a](b)](c)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		lines := strings.Split(src, "\n")
		for _, l := range markdownLinks(src) {
			if l.line < 1 || l.line > len(lines) || !strings.Contains(withoutCodeSpans(lines[l.line-1]), l.target) {
				t.Fatalf("link %q on line %d is not in %q", l.target, l.line, src)
			}
		}
		_ = markdownAnchors(src)
	})
}

// markdownFiles lists the Markdown files under root, outside hidden
// directories and node_modules.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// linkChecker checks the links of Markdown files under root, reading
// each target's anchors once.
type linkChecker struct {
	root    string
	anchors map[string]map[string]bool
}

func newLinkChecker(root string) *linkChecker {
	return &linkChecker{root: root, anchors: map[string]map[string]bool{}}
}

// check returns an error for each link of the Markdown file path that
// does not resolve.
func (c *linkChecker) check(path string) []error {
	src, err := os.ReadFile(path)
	if err != nil {
		return []error{err}
	}
	rel, _ := filepath.Rel(c.root, path)
	var errs []error
	for _, l := range markdownLinks(string(src)) {
		if err := c.resolve(path, l.target); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %s: %w", filepath.ToSlash(rel), l.line, l.target, err))
		}
	}
	return errs
}

// hasScheme matches a link with a URL scheme: not a file of the
// repository.
var hasScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

func (c *linkChecker) resolve(from, target string) error {
	if hasScheme.MatchString(target) {
		return nil
	}
	pathPart, frag, _ := strings.Cut(target, "#")
	p, err := url.PathUnescape(pathPart)
	if err != nil {
		return err
	}
	file := from
	if p != "" {
		if strings.HasPrefix(p, "/") { // GitHub: relative to the repository's root
			file = filepath.Join(c.root, filepath.FromSlash(p))
		} else {
			file = filepath.Join(filepath.Dir(from), filepath.FromSlash(p))
		}
		if r, err := filepath.Rel(c.root, file); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return fmt.Errorf("outside the repository")
		}
		if _, err := os.Stat(file); err != nil {
			return fmt.Errorf("no such file in the repository")
		}
	}
	if frag == "" || !strings.HasSuffix(file, ".md") {
		return nil // a line anchor of a source file (#L10) is GitHub's business
	}
	anchors, ok := c.anchors[file]
	if !ok {
		src, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		anchors = markdownAnchors(string(src))
		c.anchors[file] = anchors
	}
	if f, err := url.PathUnescape(frag); err == nil && (anchors[f] || anchors[strings.ToLower(f)]) {
		return nil
	}
	rel, _ := filepath.Rel(c.root, file)
	return fmt.Errorf("%s has no anchor %q", filepath.ToSlash(rel), frag)
}

// A markdownLink is the target of a link, an image or a link reference
// definition, and its line (from 1).
type markdownLink struct {
	line   int
	target string
}

var (
	referenceDef = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	htmlLink     = regexp.MustCompile(`(?i)\b(?:href|src)\s*=\s*["']([^"']+)["']`)
	atxHeading   = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	htmlID       = regexp.MustCompile(`(?i)<[a-z][^>]*\s(?:id|name)\s*=\s*["']([^"']+)["']`)
	inlineLink   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTag      = regexp.MustCompile(`<[^>]*>`)
)

// markdownLinks returns the link targets of src outside code: inline links
// and images, [label]: definitions, and HTML href and src attributes.
func markdownLinks(src string) []markdownLink {
	var links []markdownLink
	eachProseLine(src, func(n int, line string) {
		if m := referenceDef.FindStringSubmatch(line); m != nil {
			links = append(links, markdownLink{n, m[1]})
			return
		}
		for _, m := range htmlLink.FindAllStringSubmatch(line, -1) {
			links = append(links, markdownLink{n, m[1]})
		}
		rest := line
		for {
			i := strings.Index(rest, "](")
			if i < 0 {
				break
			}
			rest = rest[i+2:]
			if target, ok := linkDestination(rest); ok && target != "" {
				links = append(links, markdownLink{n, target})
			}
		}
	})
	return links
}

// linkDestination reads the destination at the start of s, the text after
// "](": <a b.md>, or up to a space or the ")" that closes the link,
// parentheses inside balanced.
func linkDestination(s string) (string, bool) {
	if strings.HasPrefix(s, "<") {
		end := strings.IndexByte(s, '>')
		if end < 0 {
			return "", false
		}
		return s[1:end], true
	}
	depth := 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth == 0, r == ' ' || r == '\t':
			return s[:i], true
		case r == ')':
			depth--
		}
	}
	return "", false
}

// markdownAnchors returns the anchors of src: its headings' (GitHub's
// slugs, a repeated one with -1, -2… appended) and its HTML ids.
func markdownAnchors(src string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	eachLine(src, func(_ int, line string, code bool) {
		if code {
			return
		}
		for _, m := range htmlID.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		m := atxHeading.FindStringSubmatch(line)
		if m == nil {
			return
		}
		slug := githubAnchor(m[1])
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	})
	return anchors
}

// githubAnchor is the anchor GitHub gives a heading: its text as rendered
// (links by their text, no tags), lower-cased, without what is not a
// letter, a digit, "_", "-" or a space, spaces as "-".
func githubAnchor(heading string) string {
	heading = inlineLink.ReplaceAllString(heading, "$1")
	heading = htmlTag.ReplaceAllString(heading, "")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Pc):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// eachProseLine calls f with each line of src outside fenced code blocks,
// its code spans removed.
func eachProseLine(src string, f func(n int, line string)) {
	eachLine(src, func(n int, line string, code bool) {
		if !code {
			f(n, withoutCodeSpans(line))
		}
	})
}

// eachLine calls f with each line of src (numbered from 1), and whether it
// is in a fenced code block (its fences included).
func eachLine(src string, f func(n int, line string, code bool)) {
	fence := ""
	for i, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		marker := ""
		if len(line)-len(trimmed) <= 3 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			marker = trimmed[:3]
		}
		switch {
		case fence == "" && marker != "":
			fence = marker
			f(i+1, line, true)
		case fence != "":
			if marker == fence {
				fence = ""
			}
			f(i+1, line, true)
		default:
			f(i+1, line, false)
		}
	}
}

// withoutCodeSpans returns line without its code spans (`…`, “…”): the
// text between a run of backticks and the next run of the same length.
func withoutCodeSpans(line string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			b.WriteString(line)
			return b.String()
		}
		b.WriteString(line[:i])
		n := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
		open := line[i : i+n]
		rest := line[i+n:]
		end := -1
		for j := 0; j+n <= len(rest); {
			k := strings.Index(rest[j:], open)
			if k < 0 {
				break
			}
			k += j
			m := len(rest[k:]) - len(strings.TrimLeft(rest[k:], "`"))
			if m == n {
				end = k
				break
			}
			j = k + m
		}
		if end < 0 { // no closing run: the backticks are text
			b.WriteString(open)
			line = rest
			continue
		}
		line = rest[end+n:]
	}
}
