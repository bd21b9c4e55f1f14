package main

import (
	statuspb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"

	conformancev1 "github.com/protorest/protorest/e2e/conformance/internal/proto/connectrpc/conformance/v1"
)

// statusError is the gRPC error a response definition asks for: its
// code, message and details, and, when info is not nil, the request
// info as one more detail (the suite's way to echo a call that fails).
func statusError(e *conformancev1.Error, info *conformancev1.ConformancePayload_RequestInfo) error {
	details := append([]*anypb.Any(nil), e.GetDetails()...)
	if info != nil {
		details = append(details, asAny(info))
	}
	return status.ErrorProto(&statuspb.Status{Code: int32(e.GetCode()), Message: e.GetMessage(), Details: details})
}
