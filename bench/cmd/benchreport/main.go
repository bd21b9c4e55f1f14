// Command benchreport reads the raw output of scripts/bench.sh's passes
// (Go benchmark format: the core module's benchmarks, the benchmark
// suite's, and the run's description as configuration lines), and writes
// the medians, ratios and issue 5's targets into the generated section of
// docs/benchmarks.md, between <!-- bench:begin --> and <!-- bench:end -->,
// and a bar chart of the in-process peers as a PNG.
//
//	go run ./cmd/benchreport -md ../docs/benchmarks.md -chart ../docs/benchmarks.png results/*.txt
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	md := flag.String("md", "../docs/benchmarks.md", "the Markdown file whose generated section to write; empty: print the section")
	chart := flag.String("chart", "", "the PNG to draw the chart into, linked from -md; empty: no chart")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: benchreport [-md ../docs/benchmarks.md] [-chart ../docs/benchmarks.png] results.txt...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*md, *chart, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}

func run(mdPath, chartPath string, inputs []string) error {
	res := NewResults()
	for _, in := range inputs {
		f, err := os.Open(in)
		if err != nil {
			return err
		}
		err = res.Parse(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
	}
	if len(res.Names) == 0 {
		return fmt.Errorf("no benchmark results in %v", inputs)
	}
	meta := MetaFrom(res)

	if chartPath != "" {
		img, err := PeersChart(res, meta).PNG()
		if err != nil {
			return err
		}
		if err := os.WriteFile(chartPath, img, 0o644); err != nil {
			return err
		}
		if mdPath != "" {
			rel, err := relLink(mdPath, chartPath)
			if err != nil {
				return err
			}
			meta.ChartLink = rel
		}
	}

	section := Report(res, meta)
	if mdPath == "" {
		fmt.Print(section)
		return nil
	}
	doc, err := os.ReadFile(mdPath)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	out, err := Splice(string(doc), section)
	if err != nil {
		return fmt.Errorf("%s: %w", mdPath, err)
	}
	return os.WriteFile(mdPath, []byte(out), 0o644)
}

// relLink is the link from the Markdown file at md to target, with
// forward slashes.
func relLink(md, target string) (string, error) {
	mdAbs, err := filepath.Abs(md)
	if err != nil {
		return "", err
	}
	tAbs, err := filepath.Abs(target)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(filepath.Dir(mdAbs), tAbs)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}
