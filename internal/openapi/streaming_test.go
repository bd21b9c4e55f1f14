package openapi

import (
	"bytes"
	"slices"
	"testing"
)

// A server stream's response lists Server-Sent Events first, which
// Swagger UI's Try-it asks for and shows; grpc-gateway's envelope under
// application/json comes last.
func TestStreamContentOrder(t *testing.T) {
	t.Parallel()
	doc := New(shopRoutes(t, nil), Options{})
	watch := doc.Paths["/v1/shops/{shop}/items/{item}:watch"]
	if watch == nil || watch.Get == nil {
		t.Fatal("no GET /v1/shops/{shop}/items/{item}:watch")
	}
	content := watch.Get.Responses["200"].Content
	if want := []string{"text/event-stream", "application/x-ndjson", "application/json"}; !slices.Equal(content.Names, want) {
		t.Errorf("stream content %q, want %q", content.Names, want)
	}
	if got := content.Types[2].Schema.Properties.Names; !slices.Equal(got, []string{"result", "error"}) {
		t.Errorf("the envelope's properties %q, want result, error", got)
	}
	// As written: in that order.
	var e encoder
	b := e.mediaTypes(nil, content)
	sse, nd, js := bytes.Index(b, []byte(`"text/event-stream"`)), bytes.Index(b, []byte(`"application/x-ndjson"`)), bytes.Index(b, []byte(`"application/json"`))
	if sse < 0 || !(sse < nd && nd < js) {
		t.Errorf("written out of order: %s", b)
	}
}
