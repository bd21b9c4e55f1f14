package example

import "embed"

// Protos holds the example's .proto files, by their import paths
// (accounts/v1/accounts.proto), for their comments.
//
//go:embed accounts/v1/accounts.proto
var Protos embed.FS
