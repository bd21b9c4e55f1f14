// Package docsui serves a documentation page for an OpenAPI document:
// Swagger UI, from the npm package swagger-ui-dist (Version), vendored
// under swagger-ui/ by scripts/swaggerui.sh (which checks the tarball
// against a pinned sha512) and embedded in the binary. The page lists the
// operations, their parameters and schemas, and its Try-it calls the API
// the document describes.
//
// No request leaves the page's origin: the files are served by the
// handler, the page is sent with a Content-Security-Policy of
// default-src 'self' (images also from data: URLs, which the stylesheet
// uses), Swagger UI's validator badge is off and it reads no
// configuration from the query string. Try-it therefore calls only the
// origin that serves the page: the document's servers should be relative
// (a Gateway's are, unless WithOpenAPIInfo sets others).
//
// The page is a package of its own, not a method of the Gateway, so that
// only the programs that import it carry its 1.9 MB of files: go:embed
// data is linked only into binaries that import the package that embeds
// it. protorest serve and the demo serve it at /docs/.
//
//	docs, err := docsui.Handler("/docs/", "/openapi.json")
//	…
//	gw.HandlePath("GET", "/docs/{file=**}", docs.ServeHTTP)
//
// Try-it on a streaming operation (x-protorest-streaming) shows the
// response as it arrives, not only when the stream ends: a small plugin,
// streams.js, reads it for Swagger UI.
//
// Swagger UI is Apache-2.0 licensed; its LICENSE and NOTICE, and the
// licenses of what its bundle contains, are in swagger-ui/.
package docsui

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest/internal/httperr"
)

// Version is the version of swagger-ui-dist the page embeds.
const Version = "5.35.0"

// contentSecurityPolicy forbids any request to another origin: scripts,
// styles, fonts, images (but data: URLs), fetches (Try-it), frames,
// forms.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

//go:embed index.html docs.js streams.js swagger-ui/swagger-ui-bundle.js swagger-ui/swagger-ui.css swagger-ui/favicon-32x32.png
var files embed.FS

// served are the files beside the page, by the name the page uses, and
// where they are embedded.
var served = map[string]string{
	"docs.js":              "docs.js",
	"streams.js":           "streams.js",
	"swagger-ui-bundle.js": "swagger-ui/swagger-ui-bundle.js",
	"swagger-ui.css":       "swagger-ui/swagger-ui.css",
	"favicon-32x32.png":    "swagger-ui/favicon-32x32.png",
}

var indexTemplate = template.Must(template.ParseFS(files, "index.html"))

// Handler serves the docs page at page, a path that ends in "/" (as
// "/docs/"; one without it is given it), and its files beside it
// ("/docs/swagger-ui.css"); a request for page without its final slash is
// redirected to page. The page shows the OpenAPI document at document: a
// URL, or a path ("/openapi.json"), which the page names relative to
// itself ("../openapi.json"), so that it still finds the document when a
// proxy serves the API under a prefix. Any other path under page is a 404
// with a google.rpc.Status body, and a method other than GET or HEAD a
// 405.
func Handler(page, document string) (http.Handler, error) {
	if !strings.HasPrefix(page, "/") {
		return nil, errors.New("docsui: the page's path must start with /")
	}
	if document == "" {
		return nil, errors.New("docsui: the document's URL is empty")
	}
	if !strings.HasSuffix(page, "/") {
		page += "/"
	}
	var index bytes.Buffer
	if err := indexTemplate.Execute(&index, struct{ Document string }{relativeTo(page, document)}); err != nil {
		return nil, err
	}
	h := &handler{page: page, files: map[string]*file{"": newFile("index.html", index.Bytes())}}
	for name, embedded := range served {
		data, err := files.ReadFile(embedded)
		if err != nil {
			return nil, err
		}
		h.files[name] = newFile(name, data)
	}
	return h, nil
}

// relativeTo is document as the page at page refers to it: an absolute
// path becomes a relative one (./ or ../ as many times as page has
// directories below the root); anything else is kept.
func relativeTo(page, document string) string {
	if !strings.HasPrefix(document, "/") || strings.HasPrefix(document, "//") {
		return document
	}
	up := strings.Count(page, "/") - 1
	if up == 0 {
		return "." + document
	}
	return strings.Repeat("../", up) + document[1:]
}

type handler struct {
	page  string
	files map[string]*file // by name under page; the page itself is ""
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", contentSecurityPolicy)
	hdr.Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hdr.Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, codes.Unimplemented, "the docs page is read with GET")
		return
	}
	if h.page != "/" && r.URL.Path == strings.TrimSuffix(h.page, "/") {
		// Relative, so that it holds under a proxy's prefix too.
		hdr.Set("Location", path.Base(r.URL.Path)+"/"+query(r))
		w.WriteHeader(http.StatusMovedPermanently)
		return
	}
	name, ok := strings.CutPrefix(r.URL.Path, h.page)
	f := h.files[name]
	if !ok || f == nil {
		writeError(w, http.StatusNotFound, codes.NotFound, "the docs page has no such file")
		return
	}
	f.serve(w, r)
}

func query(r *http.Request) string {
	if r.URL.RawQuery == "" {
		return ""
	}
	return "?" + r.URL.RawQuery
}

// writeError answers with httpStatus and a google.rpc.Status body of code
// and message, written as the gateway writes its own errors (its
// DefaultErrorHandler).
func writeError(w http.ResponseWriter, httpStatus int, code codes.Code, message string) {
	httperr.Write(w, httperr.New(httpStatus, code, message), protojson.MarshalOptions{})
}

// file is one file of the page, with its entity tag and, for text, a
// gzip-compressed copy made on first use.
type file struct {
	name        string
	data        []byte
	etag        string
	contentType string
	gzipped     func() []byte // nil: not worth compressing
}

func newFile(name string, data []byte) *file {
	sum := sha256.Sum256(data)
	f := &file{
		name:        name,
		data:        data,
		etag:        `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`,
		contentType: mime.TypeByExtension(path.Ext(name)),
	}
	if f.contentType == "" {
		f.contentType = "application/octet-stream"
	}
	if ext := path.Ext(name); ext == ".html" || ext == ".js" || ext == ".css" {
		f.gzipped = sync.OnceValue(func() []byte { return gzipBytes(data) })
	}
	return f
}

// serve writes the file, compressed when the client accepts gzip,
// revalidated by its entity tag (Cache-Control: no-cache: a new binary
// may embed another version).
func (f *file) serve(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Type", f.contentType)
	hdr.Set("Cache-Control", "no-cache")
	data, etag := f.data, f.etag
	if f.gzipped != nil {
		hdr.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Values("Accept-Encoding")) {
			data, etag = f.gzipped(), strings.TrimSuffix(etag, `"`)+`-gzip"`
			hdr.Set("Content-Encoding", "gzip")
		}
	}
	hdr.Set("ETag", etag)
	r = firstRangeOnly(r)
	http.ServeContent(w, r, f.name, time.Time{}, bytes.NewReader(data)) // no Last-Modified: the ETag decides
}

// firstRangeOnly cuts a Range of several ranges to its first: the page
// answers one range at a time. http.ServeContent would answer each in a
// multipart body whose part headers (some 150 bytes for each range) make a
// Range of many one-byte ranges cost the server 15 times the bytes of the
// request; RFC 9110 §14.2 lets a server ignore such a Range, and a single
// part is a response a client that asked for several must read. It
// returns r, or a copy of r with the Range cut.
func firstRangeOnly(r *http.Request) *http.Request {
	unit, specs, ok := strings.Cut(r.Header.Get("Range"), "=")
	if !ok || !strings.Contains(specs, ",") {
		return r
	}
	for spec := range strings.SplitSeq(specs, ",") {
		if spec = strings.TrimSpace(spec); spec != "" {
			cut := r.WithContext(r.Context())
			cut.Header = r.Header.Clone()
			cut.Header.Set("Range", unit+"="+spec)
			return cut
		}
	}
	return r
}

func gzipBytes(data []byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// acceptsGzip reports whether Accept-Encoding lines accept gzip: by name,
// else by "*", with a q-value that is not 0.
func acceptsGzip(lines []string) bool {
	star := false
	for _, line := range lines {
		for item := range strings.SplitSeq(line, ",") {
			coding, params, _ := strings.Cut(item, ";")
			q, hasQ := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
			accepted := !hasQ || strings.Trim(q, "0.") != ""
			switch strings.ToLower(strings.TrimSpace(coding)) {
			case "gzip":
				return accepted
			case "*":
				star = accepted
			}
		}
	}
	return star
}
