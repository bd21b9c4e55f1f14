package floorproxy

import (
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// The request messages, built by hand: each appends a field's tag and
// value for every field that is not its zero value, as proto.Marshal
// does, in field number order.

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendInt(b []byte, num protowire.Number, v int64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

// appendField appends field num holding the encoded message m.
func appendField(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

// appendTimestamp appends a google.protobuf.Timestamp of t.
func appendTimestamp(b []byte, t time.Time) []byte {
	b = appendInt(b, 1, t.Unix())
	return appendInt(b, 2, int64(t.Nanosecond()))
}

// bookBody is a Book in a request body, as JSON (lowerCamelCase names;
// publishTime in RFC 3339).
type bookBody struct {
	Name        string     `json:"name"`
	Title       string     `json:"title"`
	Author      string     `json:"author"`
	PageCount   int32      `json:"pageCount"`
	PublishTime *time.Time `json:"publishTime"`
	Topics      []string   `json:"topics"`
}

// appendBook appends the fields of a Book.
func appendBook(b []byte, book *bookBody) []byte {
	b = appendString(b, 1, book.Name)
	b = appendString(b, 2, book.Title)
	b = appendString(b, 3, book.Author)
	b = appendInt(b, 4, int64(book.PageCount))
	if book.PublishTime != nil {
		var ts [24]byte
		b = appendField(b, 5, appendTimestamp(ts[:0], *book.PublishTime))
	}
	for _, t := range book.Topics {
		b = protowire.AppendTag(b, 6, protowire.BytesType)
		b = protowire.AppendString(b, t)
	}
	return b
}
