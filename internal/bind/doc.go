// Package bind stores HTTP path variables and query parameters into request
// messages, following the google.api.http rules.
//
// Everything that depends only on descriptors is computed when a rule is
// registered: [ResolveField] turns a field path into a [Field] with a
// converter for its leaf, and [NewQuery] builds, for every message type a
// query parameter can reach, a table from proto and JSON names to fields.
// The per-request methods ([Field.SetPathValue], [Query.Bind]) only run
// those plans: they do no descriptor name lookups, no fmt formatting and no
// splitting into slices, and allocate only what the stored values need.
//
// # Value conversion
//
// A path or query value is converted with the proto3 JSON rules for a JSON
// string, plus grpc-gateway's extras, as shared/spec/PROFILE.md decides:
//
//   - integers: decimal, within the field's bit size ("+5" is accepted,
//     exponents, spaces and "" are not);
//   - float and double: the JSON number grammar, or exactly "NaN",
//     "Infinity" and "-Infinity"; out of range is an error;
//   - bool: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False;
//   - string: any valid UTF-8;
//   - bytes: base64, standard or URL alphabet, padded or not;
//   - enum: a value name, or the number of a declared value;
//   - google.protobuf.Timestamp: RFC 3339 with 0 to 9 fractional digits;
//   - google.protobuf.Duration: "1.5s", or Go syntax such as "90m";
//   - google.protobuf.FieldMask: comma-separated paths, lowerCamel names
//     converted to snake_case;
//   - the wrappers: the wrapped scalar's rule;
//   - google.protobuf.Value: always string_value;
//   - google.protobuf.Empty: "" or "{}".
//
// Other messages, Struct, ListValue, Any, maps and repeated messages cannot
// be set from a string. A repeated scalar or enum takes one element per
// query parameter, or a comma-separated list from a path variable.
//
// # Errors
//
// Errors returned while serving a request are gRPC status errors with code
// InvalidArgument whose message names the parameter or field and quotes at
// most 64 bytes of the offending input. Errors returned at registration are
// plain errors naming the field path component that failed.
package bind
