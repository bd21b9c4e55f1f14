// Package kindspb holds Kinds, the generated message jsonenc's tests use to
// reach every kind of field the encoder reads from generated Go structs.
// kinds.pb.go is generated from kinds.proto by internal/tools/protogen:
//
//	cd internal/tools/protogen && go run . internal/jsonenc/internal/kindspb/kinds.proto
package kindspb
