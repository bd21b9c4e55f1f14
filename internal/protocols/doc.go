// Package protocols serves a gateway's methods over Connect, gRPC-Web
// (binary and text) and gRPC at their canonical paths,
// "/pkg.Service/Method": every method the gateway serves, in-process or
// remote, whether or not it has google.api.http rules.
//
// Of tells a request's protocol from its headers, as connect-go does:
// the Content-Type (application/grpc[+codec], application/grpc-web[+codec],
// application/grpc-web-text[+codec], application/connect+codec), a
// Connect-Protocol-Version header on a unary POST of application/json or
// application/proto, ?connect=v1 on a GET. Such a unary POST without the
// header is REST's when a REST rule serves its method and path; every
// other call of these protocols is the canonical path's.
//
// Each method has a connect-go handler (connectrpc.com/connect), which
// speaks the protocols: their framing, compression (gzip), timeouts
// (Connect-Timeout-Ms, Grpc-Timeout), errors (Connect's error JSON with
// details, gRPC's status trailers), Connect's GET for a method marked
// idempotency_level = NO_SIDE_EFFECTS. Its codecs do not decode: a
// request message reaches the method as its bytes, which the method's
// canonical request plan (plan.Canonical) decodes once, into the
// method's own type in-process, or, remote, not at all (binary bytes go
// to the backend as they came; JSON is transcoded straight to the wire
// form). Responses are encoded by the method's response plan: a
// backend's binary response goes out as its bytes. connect-go does not
// speak gRPC-Web's text mode: its calls are binary gRPC-Web calls whose
// bodies are base64 both ways (textReader, textWriter), padding accepted
// mid-stream.
//
// A call is made as a REST call is: the method's invoker (internal/invoke
// in-process, with the interceptors and the stats handler;
// internal/remote for a backend) reads the request messages from the
// exchange's Source and sends what the method answers to its Sink, here
// connect-go's stream. What differs from REST is the metadata (every
// header under its own name, as a gRPC server sees it, less the
// protocols' own: headers.Policy.RPCMetadata) and the deadline (the
// protocol's own, bounded by the gateway's maximum; the default deadline
// when there is none: headers.Policy.Bound).
package protocols
