package otelprotorest

import "google.golang.org/grpc/codes"

// codeNames are google.rpc.Code's enum names, indexed by code.
var codeNames = [...]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
	"ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
	"UNAUTHENTICATED",
}

// StatusCodeName is c's name in google.rpc.Code ("NOT_FOUND"), the value
// of rpc.response.status_code as otelgrpc reports it; a code outside the
// enum is its number, as otelgrpc's is.
func StatusCodeName(c codes.Code) string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return c.String() // "Code(42)"
}
