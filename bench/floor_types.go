package bench

import (
	"fmt"
	"time"
)

// The floor's plain Go types. Each has the JSON form protojson gives its
// message with grpc-gateway's default options (lowerCamelCase names, every
// field present, int64 as a string, enums by name, an unset message as
// null, empty lists and maps as [] and {}), so that encoding/json on them
// writes what the gateways write.

type bookJSON struct {
	Name        string         `json:"name"`
	Title       string         `json:"title"`
	Author      string         `json:"author"`
	PageCount   int32          `json:"pageCount"`
	PublishTime *timestampJSON `json:"publishTime"`
	Topics      []string       `json:"topics"`
}

type listBooksResponseJSON struct {
	Books         []bookJSON `json:"books"`
	NextPageToken string     `json:"nextPageToken"`
}

type echoJSON struct {
	Message string   `json:"message"`
	Count   int32    `json:"count"`
	ID      int64    `json:"id,string"`
	Urgent  bool     `json:"urgent"`
	Tags    []string `json:"tags"`
}

type listItemsResponseJSON struct {
	Items     []itemJSON `json:"items"`
	TotalSize int32      `json:"totalSize"`
}

type itemJSON struct {
	Name       string            `json:"name"`
	Title      string            `json:"title"`
	Quantity   int32             `json:"quantity"`
	Sku        int64             `json:"sku,string"`
	Price      float64           `json:"price"`
	Status     string            `json:"status"`
	UpdateTime *timestampJSON    `json:"updateTime"`
	Tags       []string          `json:"tags"`
	Labels     map[string]string `json:"labels"`
	Offers     []offerJSON       `json:"offers"`
}

type offerJSON struct {
	Seller      string `json:"seller"`
	PriceMicros int64  `json:"priceMicros,string"`
}

// statusJSON is an error body, grpc-gateway's google.rpc.Status.
type statusJSON struct {
	Code    int32  `json:"code"`
	Message string `json:"message"`
	Details []any  `json:"details"`
}

// timestampJSON is a google.protobuf.Timestamp: an RFC 3339 string in
// UTC with 0, 3, 6 or 9 fractional digits, as protojson writes it.
type timestampJSON time.Time

func (t timestampJSON) MarshalJSON() ([]byte, error) {
	u := time.Time(t).UTC()
	b := make([]byte, 0, len(`"2006-01-02T15:04:05.000000000Z"`))
	b = append(b, '"')
	b = u.AppendFormat(b, "2006-01-02T15:04:05")
	switch ns := u.Nanosecond(); {
	case ns == 0:
	case ns%1_000_000 == 0:
		b = fmt.Appendf(b, ".%03d", ns/1_000_000)
	case ns%1_000 == 0:
		b = fmt.Appendf(b, ".%06d", ns/1_000)
	default:
		b = fmt.Appendf(b, ".%09d", ns)
	}
	return append(b, 'Z', '"'), nil
}

func (t *timestampJSON) UnmarshalJSON(b []byte) error {
	var u time.Time
	if err := u.UnmarshalJSON(b); err != nil {
		return err
	}
	*t = timestampJSON(u)
	return nil
}
