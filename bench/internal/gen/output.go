package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/types/pluginpb"
)

// write writes the generated files under out, leaving files whose content
// is already right untouched.
func write(out string, files []*pluginpb.CodeGeneratorResponse_File) error {
	for _, f := range files {
		path := filepath.Join(out, filepath.FromSlash(f.GetName()))
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, []byte(f.GetContent())) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(f.GetContent()), 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", f.GetName())
	}
	return nil
}

// stale lists the generated files that are missing under out or differ.
func stale(out string, files []*pluginpb.CodeGeneratorResponse_File) []string {
	var bad []string
	for _, f := range files {
		old, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(f.GetName())))
		switch {
		case err != nil:
			bad = append(bad, "missing: "+f.GetName())
		case !bytes.Equal(old, []byte(f.GetContent())):
			bad = append(bad, "stale:   "+f.GetName())
		}
	}
	return bad
}
