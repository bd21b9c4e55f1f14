package bench

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// itemWords make the items' titles and tags.
var itemWords = []string{"copper", "kettle", "linen", "walnut", "desk", "lamp", "wool", "throw", "ceramic", "vase", "oak", "shelf"}

// itemStatuses cycle through the items.
var itemStatuses = []libraryv1.Status{
	libraryv1.Status_STATUS_IN_STOCK,
	libraryv1.Status_STATUS_IN_STOCK,
	libraryv1.Status_STATUS_BACKORDER,
	libraryv1.Status_STATUS_DISCONTINUED,
}

// Items returns n catalogue items, the same for the same n: item i is a
// function of i alone, its timestamp included. In compact protojson with
// EmitUnpopulated each is about 265 bytes, so ListItems with n = 1, 50
// and 500 answers 0.3 KB, 13 KiB and 130 KiB (TestListItemsSize).
func Items(n int) []*libraryv1.Item {
	items := make([]*libraryv1.Item, n)
	for i := range items {
		items[i] = item(i)
	}
	return items
}

func item(i int) *libraryv1.Item {
	w := func(k int) string { return itemWords[(i+k)%len(itemWords)] }
	return &libraryv1.Item{
		Name:       fmt.Sprintf("items/%05d", i),
		Title:      w(0) + " " + w(3),
		Quantity:   int32(i % 97),
		Sku:        4_000_000_000 + int64(i)*7919,
		Price:      float64(499+i*37%10_000) / 100,
		Status:     itemStatuses[i%len(itemStatuses)],
		UpdateTime: timestamppb.New(epoch.Add(time.Duration(i)*time.Minute + time.Duration(i*7%1000)*time.Millisecond)),
		Tags:       []string{w(1), w(5)},
		Labels:     map[string]string{"color": w(2)},
		Offers:     []*libraryv1.Offer{{Seller: w(4), PriceMicros: int64(4_990_000 + i*10_000)}},
	}
}
