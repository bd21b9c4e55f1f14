package protocols

import (
	"testing"

	"github.com/protorest/protorest/internal/exchange"
)

// TestTable: Replace adds and drops endpoints by path; dropping an
// endpoint another has replaced at its path leaves the other.
func TestTable(t *testing.T) {
	var tab Table
	if tab.Lookup("/p.S/M") != nil {
		t.Fatal("an empty table has an endpoint")
	}
	a, b, c := &exchange.Endpoint{Pattern: "/p.S/A"}, &exchange.Endpoint{Pattern: "/p.S/B"}, &exchange.Endpoint{Pattern: "/p.S/A"}
	tab.Replace(nil, []*exchange.Endpoint{a, b})
	if tab.Lookup("/p.S/A") != a || tab.Lookup("/p.S/B") != b {
		t.Fatal("added endpoints not found")
	}
	tab.Replace([]*exchange.Endpoint{a}, []*exchange.Endpoint{c}) // a reload: A's new endpoint
	if tab.Lookup("/p.S/A") != c || tab.Lookup("/p.S/B") != b {
		t.Fatal("the reload did not swap A")
	}
	tab.Replace([]*exchange.Endpoint{a, b}, nil) // a is gone already: c stays
	if tab.Lookup("/p.S/A") != c || tab.Lookup("/p.S/B") != nil {
		t.Fatalf("after dropping a and b: A %v, B %v", tab.Lookup("/p.S/A"), tab.Lookup("/p.S/B"))
	}
}
