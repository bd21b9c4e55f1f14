package openapi

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// A Cache holds the document of one version of a route table: it is
// built on first use after the version changes, and builds are
// serialised, so that requests arriving during one wait for it rather
// than build it again.
type Cache struct {
	mu      sync.Mutex
	version uint64
	doc     *Served
}

// Get returns the document of the routes at version current, calling
// build when the cached one is of another version; build returns the
// document's JSON and the version it was built from.
func (c *Cache) Get(current uint64, build func() (data []byte, version uint64)) *Served {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.doc != nil && c.version == current {
		return c.doc
	}
	data, version := build()
	etag := documentETag(data)
	c.doc = &Served{
		JSON:     data,
		etag:     etag,
		yaml:     sync.OnceValue(func() []byte { return YAML(data) }),
		yamlETag: strings.TrimSuffix(etag, `"`) + `-yaml"`,
	}
	c.version = version
	return c.doc
}

// Served is a built document, in JSON; its YAML is made on first
// use. It never changes.
type Served struct {
	JSON     []byte
	etag     string
	yaml     func() []byte
	yamlETag string
}

// Serve writes the document, as YAML or JSON, with a strong ETag (a hash
// of the document) and Cache-Control: no-cache (a reload may change it),
// answering 304 Not Modified to a request whose If-None-Match names it:
// one write of the cached bytes (http.ServeContent's copy through a
// buffer costs a 32 KiB allocation a request).
func (d *Served) Serve(w http.ResponseWriter, r *http.Request, yaml bool) {
	body, etag, media := d.JSON, d.etag, "application/json"
	if yaml {
		body, etag, media = d.yaml(), d.yamlETag, "application/yaml"
	}
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-cache")
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", media)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// etagMatches reports whether an If-None-Match header names etag (or is
// "*"), comparing weakly as RFC 9110 says for If-None-Match.
func etagMatches(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
			return true
		}
	}
	return false
}

// documentETag is a strong entity tag: the start of the document's
// SHA-256.
func documentETag(data []byte) string {
	sum := sha256.Sum256(data)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
}
