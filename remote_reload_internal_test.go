package protorest

import (
	"context"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	bookstorev1 "github.com/protorest/protorest/examples/bookstore/v1"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	"github.com/protorest/protorest/internal/descsource/descsourcetest"
)

// TestReloadUnchangedKeepsRoutes: a reload that finds the same
// descriptors swaps nothing (so a reload on an interval builds no new
// routes, types or JSON plans); changed ones are swapped.
func TestReloadUnchangedKeepsRoutes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "set.binpb")
	descsourcetest.WriteSet(t, path, examplev1.File_examples_example_v1_example_proto)
	conn, err := grpc.NewClient("127.0.0.1:1", grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	g := NewGateway()
	ctx := context.Background()
	if err := g.RegisterRemote(ctx, conn, WithDescriptorSetFile(path)); err != nil {
		t.Fatal(err)
	}
	first := g.gw.Backends()[0].Entries()[0]
	if err := g.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if g.gw.Backends()[0].Entries()[0] != first {
		t.Error("a reload of the same descriptors replaced the routes")
	}
	descsourcetest.WriteSet(t, path, examplev1.File_examples_example_v1_example_proto, bookstorev1.File_examples_bookstore_v1_bookstore_proto)
	if err := g.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if g.gw.Backends()[0].Entries()[0] == first || len(g.gw.Backends()[0].Services()) != 2 {
		t.Errorf("a reload of changed descriptors kept the routes: %v", g.gw.Backends()[0].Services())
	}
}
