package bench

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// Conversions between the floor's plain types and the messages the
// Library takes and returns.

func bookToJSON(b *libraryv1.Book) bookJSON {
	return bookJSON{
		Name:        b.GetName(),
		Title:       b.GetTitle(),
		Author:      b.GetAuthor(),
		PageCount:   b.GetPageCount(),
		PublishTime: timestampToJSON(b.GetPublishTime()),
		Topics:      nonNil(b.GetTopics()),
	}
}

func bookFromJSON(b *bookJSON) *libraryv1.Book {
	return &libraryv1.Book{
		Name:        b.Name,
		Title:       b.Title,
		Author:      b.Author,
		PageCount:   b.PageCount,
		PublishTime: timestampFromJSON(b.PublishTime),
		Topics:      b.Topics,
	}
}

func listBooksToJSON(r *libraryv1.ListBooksResponse) listBooksResponseJSON {
	books := make([]bookJSON, len(r.GetBooks()))
	for i, b := range r.GetBooks() {
		books[i] = bookToJSON(b)
	}
	return listBooksResponseJSON{Books: books, NextPageToken: r.GetNextPageToken()}
}

func echoToJSON(m *libraryv1.EchoMessage) echoJSON {
	return echoJSON{Message: m.GetMessage(), Count: m.GetCount(), ID: m.GetId(), Urgent: m.GetUrgent(), Tags: nonNil(m.GetTags())}
}

func echoFromJSON(m *echoJSON) *libraryv1.EchoMessage {
	return &libraryv1.EchoMessage{Message: m.Message, Count: m.Count, Id: m.ID, Urgent: m.Urgent, Tags: m.Tags}
}

func listItemsToJSON(r *libraryv1.ListItemsResponse) listItemsResponseJSON {
	items := make([]itemJSON, len(r.GetItems()))
	for i, it := range r.GetItems() {
		items[i] = itemToJSON(it)
	}
	return listItemsResponseJSON{Items: items, TotalSize: r.GetTotalSize()}
}

func itemToJSON(it *libraryv1.Item) itemJSON {
	offers := make([]offerJSON, len(it.GetOffers()))
	for i, o := range it.GetOffers() {
		offers[i] = offerJSON{Seller: o.GetSeller(), PriceMicros: o.GetPriceMicros()}
	}
	labels := it.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	return itemJSON{
		Name:       it.GetName(),
		Title:      it.GetTitle(),
		Quantity:   it.GetQuantity(),
		Sku:        it.GetSku(),
		Price:      it.GetPrice(),
		Status:     it.GetStatus().String(),
		UpdateTime: timestampToJSON(it.GetUpdateTime()),
		Tags:       nonNil(it.GetTags()),
		Labels:     labels,
		Offers:     offers,
	}
}

func timestampToJSON(ts *timestamppb.Timestamp) *timestampJSON {
	if ts == nil {
		return nil
	}
	t := timestampJSON(ts.AsTime())
	return &t
}

func timestampFromJSON(t *timestampJSON) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return timestamppb.New(time.Time(*t))
}

// nonNil returns s, or an empty slice for nil: encoding/json writes nil
// as null, protojson an empty list as [].
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
