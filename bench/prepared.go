package bench

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// PreparedLibrary is the Library whose StreamItems sends items made once
// (Items(MaxItems)), as GetBook answers books made once: a call of it
// costs the service nothing per item, so that what a benchmark measures
// is what serves the stream. The items are those of Library.StreamItems.
type PreparedLibrary struct {
	*Library
	items []*libraryv1.Item
}

// NewPreparedLibrary returns the Library with its items made.
func NewPreparedLibrary() *PreparedLibrary {
	return &PreparedLibrary{Library: NewLibrary(), items: Items(MaxItems)}
}

func (l *PreparedLibrary) StreamItems(req *libraryv1.ListItemsRequest, stream grpc.ServerStreamingServer[libraryv1.Item]) error {
	n := int(req.GetN())
	if n < 0 || n > MaxItems {
		return status.Errorf(codes.InvalidArgument, "n must be between 0 and %d", MaxItems)
	}
	for _, it := range l.items[:n] {
		if err := stream.Send(it); err != nil {
			return err
		}
	}
	return nil
}
