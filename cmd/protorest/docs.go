package main

import (
	"strings"

	"github.com/protorest/protorest"
	"github.com/protorest/protorest/docsui"
)

// mountDocs serves the docs page (Swagger UI, package docsui) at page, a
// path ending in "/", on the OpenAPI document at document; the route is
// in the document too.
func mountDocs(gw *protorest.Gateway, page, document string) error {
	h, err := docsui.Handler(page, document)
	if err != nil {
		return err
	}
	return gw.HandleDocumentedPath("GET", strings.TrimSuffix(page, "/")+"/{file=**}", h.ServeHTTP,
		protorest.RouteDoc{Summary: "This API's documentation page (Swagger UI " + docsui.Version + "), with Try-it."})
}
