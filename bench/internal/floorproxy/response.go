package floorproxy

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
)

// The response messages, read by hand: each appends the JSON protojson
// writes for it with grpc-gateway's options (lowerCamelCase names, every
// field present in field number order, int64 as a string, enums by name,
// an unset message as null, empty lists [] and maps {}). As for
// proto.Unmarshal, the last of a repeated scalar field wins, the
// occurrences of a message field merge, and a field of an unexpected
// wire type is an unknown field, which JSON leaves out.

// appendBook appends the JSON of a bench.library.v1.Book.
func appendBookJSON(out, b []byte) ([]byte, error) {
	var name, title, author, topics []byte
	var pages int32
	var publish timestamp
	var err error
	for rest := b; len(rest) > 0; {
		var f field
		if f, rest, err = nextField(rest); err != nil {
			return out, err
		}
		switch {
		case f.isBytes(1):
			name = f.bytes
		case f.isBytes(2):
			title = f.bytes
		case f.isBytes(3):
			author = f.bytes
		case f.isVarint(4):
			pages = int32(f.val)
		case f.isBytes(5):
			if err := publish.merge(f.bytes); err != nil {
				return out, err
			}
		case f.isBytes(6) && topics == nil:
			topics = b // read again below
		}
	}
	out = append(out, `{"name":`...)
	if out, err = appendJSONString(out, name); err != nil {
		return out, err
	}
	out = append(out, `,"title":`...)
	if out, err = appendJSONString(out, title); err != nil {
		return out, err
	}
	out = append(out, `,"author":`...)
	if out, err = appendJSONString(out, author); err != nil {
		return out, err
	}
	out = append(out, `,"pageCount":`...)
	out = strconv.AppendInt(out, int64(pages), 10)
	out = append(out, `,"publishTime":`...)
	if out, err = publish.appendJSON(out); err != nil {
		return out, err
	}
	out = append(out, `,"topics":`...)
	if out, err = appendStrings(out, topics, 6); err != nil {
		return out, err
	}
	return append(out, '}'), nil
}

// appendListBooksJSON appends the JSON of a ListBooksResponse.
func appendListBooksJSON(out, b []byte) ([]byte, error) {
	var token []byte
	var err error
	out = append(out, `{"books":[`...)
	n := 0
	for rest := b; len(rest) > 0; {
		var f field
		if f, rest, err = nextField(rest); err != nil {
			return out, err
		}
		switch {
		case f.isBytes(1):
			if n++; n > 1 {
				out = append(out, ',')
			}
			if out, err = appendBookJSON(out, f.bytes); err != nil {
				return out, err
			}
		case f.isBytes(2):
			token = f.bytes
		}
	}
	out = append(out, `],"nextPageToken":`...)
	if out, err = appendJSONString(out, token); err != nil {
		return out, err
	}
	return append(out, '}'), nil
}

// appendListItemsJSON appends the JSON of a ListItemsResponse.
func appendListItemsJSON(out, b []byte) ([]byte, error) {
	var total int32
	var err error
	out = append(out, `{"items":[`...)
	n := 0
	for rest := b; len(rest) > 0; {
		var f field
		if f, rest, err = nextField(rest); err != nil {
			return out, err
		}
		switch {
		case f.isBytes(1):
			if n++; n > 1 {
				out = append(out, ',')
			}
			if out, err = appendItemJSON(out, f.bytes); err != nil {
				return out, err
			}
		case f.isVarint(2):
			total = int32(f.val)
		}
	}
	out = append(out, `],"totalSize":`...)
	out = strconv.AppendInt(out, int64(total), 10)
	return append(out, '}'), nil
}

// statusNames are the names of bench.library.v1.Status's values.
var statusNames = []string{"STATUS_UNSPECIFIED", "STATUS_IN_STOCK", "STATUS_BACKORDER", "STATUS_DISCONTINUED"}

// appendItemJSON appends the JSON of an Item.
func appendItemJSON(out, b []byte) ([]byte, error) {
	var name, title, repeated []byte
	var quantity, status int32
	var sku int64
	var price float64
	var updated timestamp
	var err error
	for rest := b; len(rest) > 0; {
		var f field
		if f, rest, err = nextField(rest); err != nil {
			return out, err
		}
		switch {
		case f.isBytes(1):
			name = f.bytes
		case f.isBytes(2):
			title = f.bytes
		case f.isVarint(3):
			quantity = int32(f.val)
		case f.isVarint(4):
			sku = int64(f.val)
		case f.num == 5 && f.typ == protowire.Fixed64Type:
			price = math.Float64frombits(f.val)
		case f.isVarint(6):
			status = int32(f.val)
		case f.isBytes(7):
			if err := updated.merge(f.bytes); err != nil {
				return out, err
			}
		case f.isBytes(8), f.isBytes(9), f.isBytes(10):
			repeated = b // read again below
		}
	}
	out = append(out, `{"name":`...)
	if out, err = appendJSONString(out, name); err != nil {
		return out, err
	}
	out = append(out, `,"title":`...)
	if out, err = appendJSONString(out, title); err != nil {
		return out, err
	}
	out = append(out, `,"quantity":`...)
	out = strconv.AppendInt(out, int64(quantity), 10)
	out = append(out, `,"sku":`...)
	out = appendJSONInt64(out, sku)
	out = append(out, `,"price":`...)
	out = appendJSONDouble(out, price)
	out = append(out, `,"status":`...)
	if status >= 0 && int(status) < len(statusNames) {
		out = append(out, '"')
		out = append(out, statusNames[status]...)
		out = append(out, '"')
	} else {
		out = strconv.AppendInt(out, int64(status), 10)
	}
	out = append(out, `,"updateTime":`...)
	if out, err = updated.appendJSON(out); err != nil {
		return out, err
	}
	out = append(out, `,"tags":`...)
	if out, err = appendStrings(out, repeated, 8); err != nil {
		return out, err
	}
	out = append(out, `,"labels":`...)
	if out, err = appendLabels(out, repeated); err != nil {
		return out, err
	}
	out = append(out, `,"offers":[`...)
	n := 0
	for rest := repeated; len(rest) > 0; {
		var f field
		if f, rest, err = nextField(rest); err != nil {
			return out, err
		}
		if f.isBytes(10) {
			if n++; n > 1 {
				out = append(out, ',')
			}
			if out, err = appendOfferJSON(out, f.bytes); err != nil {
				return out, err
			}
		}
	}
	return append(out, "]}"...), nil
}

// appendOfferJSON appends the JSON of an Offer.
func appendOfferJSON(out, b []byte) ([]byte, error) {
	var seller []byte
	var micros int64
	var err error
	for rest := b; len(rest) > 0; {
		var f field
		if f, rest, err = nextField(rest); err != nil {
			return out, err
		}
		switch {
		case f.isBytes(1):
			seller = f.bytes
		case f.isVarint(2):
			micros = int64(f.val)
		}
	}
	out = append(out, `{"seller":`...)
	if out, err = appendJSONString(out, seller); err != nil {
		return out, err
	}
	out = append(out, `,"priceMicros":`...)
	out = appendJSONInt64(out, micros)
	return append(out, '}'), nil
}

// appendStrings appends the repeated string field num of the message b
// (nil: none) as a JSON array.
func appendStrings(out, b []byte, num protowire.Number) ([]byte, error) {
	out = append(out, '[')
	n := 0
	var err error
	for rest := b; len(rest) > 0; {
		var f field
		if f, rest, err = nextField(rest); err != nil {
			return out, err
		}
		if f.isBytes(num) {
			if n++; n > 1 {
				out = append(out, ',')
			}
			if out, err = appendJSONString(out, f.bytes); err != nil {
				return out, err
			}
		}
	}
	return append(out, ']'), nil
}

// A label is an entry of Item.labels, a map<string, string>.
type label struct{ key, value []byte }

// appendLabels appends Item.labels (field 9 of the Item b, nil: none) as
// a JSON object, sorted by key as protojson sorts maps; of entries with
// the same key the last wins.
func appendLabels(out, b []byte) ([]byte, error) {
	var buf [4]label
	labels := buf[:0]
	var err error
	for rest := b; len(rest) > 0; {
		var f field
		if f, rest, err = nextField(rest); err != nil {
			return out, err
		}
		if !f.isBytes(9) {
			continue
		}
		var l label
		for entry := f.bytes; len(entry) > 0; {
			var e field
			if e, entry, err = nextField(entry); err != nil {
				return out, err
			}
			switch {
			case e.isBytes(1):
				l.key = e.bytes
			case e.isBytes(2):
				l.value = e.bytes
			}
		}
		if i := slices.IndexFunc(labels, func(o label) bool { return string(o.key) == string(l.key) }); i >= 0 {
			labels[i] = l
		} else {
			labels = append(labels, l)
		}
	}
	slices.SortFunc(labels, func(a, b label) int { return cmp.Compare(string(a.key), string(b.key)) })
	out = append(out, '{')
	for i, l := range labels {
		if i > 0 {
			out = append(out, ',')
		}
		if out, err = appendJSONString(out, l.key); err != nil {
			return out, err
		}
		out = append(out, ':')
		if out, err = appendJSONString(out, l.value); err != nil {
			return out, err
		}
	}
	return append(out, '}'), nil
}

// A timestamp is a google.protobuf.Timestamp field, which may occur more
// than once: the occurrences merge.
type timestamp struct {
	set         bool
	secs, nanos int64
}

// merge reads one occurrence of the field.
func (t *timestamp) merge(b []byte) error {
	t.set = true
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return err
		}
		switch {
		case f.isVarint(1):
			t.secs = int64(f.val)
		case f.isVarint(2):
			t.nanos = int64(int32(f.val))
		}
		b = rest
	}
	return nil
}

// appendJSON appends the timestamp, or null when it is unset.
func (t *timestamp) appendJSON(out []byte) ([]byte, error) {
	if !t.set {
		return append(out, "null"...), nil
	}
	return appendJSONTimestamp(out, t.secs, t.nanos)
}
