// Package examples holds the .proto sources of the example services
// (library/v1, bookstore/v1, example/v1), embedded: their generated Go
// code keeps no comments, and the demo compiles these to document its
// OpenAPI document with them (protorest.WithOpenAPIComments).
package examples

import "embed"

// Protos are the example services' .proto files, by import path
// ("library/v1/library.proto").
//
//go:embed library/v1/library.proto bookstore/v1/bookstore.proto example/v1/example.proto
var Protos embed.FS
