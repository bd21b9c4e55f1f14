package floorproxy

import "fmt"

// ResponseJSON is the floor's JSON of the encoded response message b of
// kind Book, ListBooksResponse, ListItemsResponse or Item, for the tests
// that compare it with protojson's.
func ResponseJSON(kind string, b []byte) ([]byte, error) {
	switch kind {
	case "Book":
		return appendBookJSON(nil, b)
	case "ListBooksResponse":
		return appendListBooksJSON(nil, b)
	case "ListItemsResponse":
		return appendListItemsJSON(nil, b)
	case "Item":
		return appendItemJSON(nil, b)
	}
	return nil, fmt.Errorf("floorproxy: no message %q", kind)
}
