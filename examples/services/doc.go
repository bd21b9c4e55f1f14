// Package services implements the example services: example.v1.MySvc,
// bookstore.v1.BookService and library.v1.LibraryService. They are what
// `protorest demo` serves, and what the documentation and tests register on a
// gateway. Each constructor returns a value that can be registered on a
// grpc.Server or a protorest.Gateway alike:
//
//	examplev1.RegisterMySvcServer(gw, services.NewMySvc())
package services
