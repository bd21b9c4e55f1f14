// Package protorest serves gRPC services as HTTP/JSON APIs, following the
// google.api.http annotations in their protobuf descriptors, read at run
// time: there is no generated gateway code. URLs, JSON, error bodies and
// headers follow grpc-gateway's conventions, so that clients migrating
// from it keep working; MIGRATING.md lists every deliberate difference.
//
// # Quick start: services in your program
//
// A Gateway is an http.Handler and a grpc.ServiceRegistrar. Register a
// service on it exactly as on a grpc.Server, and every method with an HTTP
// rule answers REST/JSON, in-process, through the same interceptors:
//
//	gw := protorest.NewGateway(protorest.WithUnaryInterceptors(logging, recovery))
//	pb.RegisterLibraryServer(gw, impl) // the call you make on a grpc.Server
//	log.Fatal(protorest.ListenAndServe(protorest.NewServer(":8080", gw)))
//
// A method whose rule is get: "/v1/{name=shelves/*/books/*}" now answers
// GET /v1/shelves/1/books/2 with its response as JSON. NewServer is an
// http.Server with the timeouts and HTTP/2 settings recommended in front
// of a gateway; ListenAndServe serves it with HTTP/1.1 framing checked.
//
// # Quick start: a gRPC backend in any language
//
// RegisterRemote serves the services of a gRPC server reached over a
// grpc.ClientConn, with descriptors from server reflection (the default),
// a descriptor set, .proto sources compiled in-process, or a
// *protoregistry.Files:
//
//	conn, err := grpc.NewClient("dns:///app:50051", grpc.WithTransportCredentials(insecure.NewCredentials()))
//	if err != nil {
//		log.Fatal(err)
//	}
//	gw := protorest.NewGateway()
//	if err := gw.RegisterRemote(ctx, conn); err != nil { // or WithDescriptorSetFile, WithProtoFiles
//		log.Fatal(err)
//	}
//	log.Fatal(protorest.ListenAndServe(protorest.NewServer(":8080", gw)))
//
// Reload re-reads the descriptors and swaps the routes atomically, and
// WithPending keeps a backend that is not up yet (503 until a Reload loads
// it). The command protorest serve does all of this with no Go at all.
//
// # The pipeline
//
// ServeHTTP first passes the request through the edge: the admission
// limits (URL size, header and query parameter counts) and, when they are
// configured, CORS and compression. It then routes the request: the most
// specific template wins, whatever the registration order, and r.Pattern
// is set to it for middleware. It negotiates the
// request's format by Content-Type and the response's by Accept (JSON,
// binary protobuf, a WithCodec type; Server-Sent Events or NDJSON for a
// server stream), binds the body, the path variables and the query
// parameters into the request message, checks it against its rules when
// WithValidation asks (protovalidate's, with the validateprotorest
// module), invokes the method (in-process
// through the interceptors, or remotely with conn.Invoke and
// conn.NewStream), and renders the response, or a stream message by
// message. Any error along the way is answered as a google.rpc.Status JSON
// body with the HTTP status of its code. Every limit (body, JSON depth,
// metadata, timeouts, response size) is on by default. Streaming methods
// also accept a WebSocket on the same route, and HandlePath adds plain
// handlers to the same router. Every method also answers Connect,
// gRPC-Web and gRPC calls at its gRPC path, "/pkg.Service/Method", on the
// same port, under the same limits (WithoutProtocols turns them off).
//
// # Where to read on
//
//   - The reference, docs/reference.md in the repository: routing,
//     binding, content types, streaming and WebSocket, errors,
//     validation, limits, metadata, Connect, gRPC-Web and gRPC, hooks,
//     custom routes, CORS and compression, observability, OpenAPI. See
//     [Reference].
//   - Each option's documentation here, for what it does, its default and
//     its error.
//   - README.md: the library in more detail, the protorest command
//     (serve, demo, openapi), the demo, the repository's layout.
//   - MIGRATING.md: every grpc-gateway API mapped to protorest, and every
//     difference in behaviour with the option that restores grpc-gateway's.
//   - CHANGELOG.md: changes to the API and to what clients see.
//   - RELIABILITY.md: each limit measured against protorest serve, and
//     serve under load; docs/benchmarks.md: the costs, against
//     grpc-gateway and a hand-written handler.
//
// [Reference]: https://github.com/protorest/protorest/blob/main/docs/reference.md
package protorest
