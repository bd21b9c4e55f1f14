package main

import (
	"context"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"

	conformancev1 "github.com/protorest/protorest/e2e/conformance/internal/proto/connectrpc/conformance/v1"
)

// conformanceService is connectrpc.conformance.v1.ConformanceService as
// the suite's reference servers behave: each call answers as its
// request's response definition says (metadata, data, delay, error)
// and echoes what it received (RequestInfo). Unimplemented is left
// unimplemented, as the suite wants.
type conformanceService struct {
	conformancev1.UnimplementedConformanceServiceServer
}

func (conformanceService) Unary(ctx context.Context, req *conformancev1.UnaryRequest) (*conformancev1.UnaryResponse, error) {
	payload, err := unaryPayload(ctx, unaryMetadata{ctx}, req.GetResponseDefinition(), []*anypb.Any{asAny(req)})
	if err != nil {
		return nil, err
	}
	return &conformancev1.UnaryResponse{Payload: payload}, nil
}

// IdempotentUnary answers as Unary. Its Connect GET query parameters
// (RequestInfo.connect_get_info) are not echoed: a service registered on
// a gateway sees metadata, not the HTTP request (the runner compares
// them only when a server echoes some).
func (conformanceService) IdempotentUnary(ctx context.Context, req *conformancev1.IdempotentUnaryRequest) (*conformancev1.IdempotentUnaryResponse, error) {
	payload, err := unaryPayload(ctx, unaryMetadata{ctx}, req.GetResponseDefinition(), []*anypb.Any{asAny(req)})
	if err != nil {
		return nil, err
	}
	return &conformancev1.IdempotentUnaryResponse{Payload: payload}, nil
}

// A metadataSink takes a call's response header and trailer: a
// grpc.ServerStream, or unaryMetadata for a unary call.
type metadataSink interface {
	SetHeader(metadata.MD) error
	SetTrailer(metadata.MD)
}

// unaryMetadata sets a unary call's response metadata.
type unaryMetadata struct{ ctx context.Context }

func (u unaryMetadata) SetHeader(md metadata.MD) error { return grpc.SetHeader(u.ctx, md) }
func (u unaryMetadata) SetTrailer(md metadata.MD)      { _ = grpc.SetTrailer(u.ctx, md) }

// unaryPayload is the answer of a call with one response (unary or client
// stream) to reqs: without a definition, only the request info; with
// one, its metadata set, after its delay, its data or its error (with the
// request info in the error's details).
func unaryPayload(ctx context.Context, sink metadataSink, def *conformancev1.UnaryResponseDefinition, reqs []*anypb.Any) (*conformancev1.ConformancePayload, error) {
	info := requestInfo(ctx, reqs)
	if def == nil {
		return &conformancev1.ConformancePayload{RequestInfo: info}, nil
	}
	if err := sink.SetHeader(metadataOf(def.GetResponseHeaders())); err != nil {
		return nil, err
	}
	sink.SetTrailer(metadataOf(def.GetResponseTrailers()))
	if err := sleep(ctx, def.GetResponseDelayMs()); err != nil {
		return nil, err
	}
	if e := def.GetError(); e != nil {
		return nil, statusError(e, info)
	}
	return &conformancev1.ConformancePayload{Data: def.GetResponseData(), RequestInfo: info}, nil
}

// sleep waits ms milliseconds, or until ctx ends: then it returns the
// status of ctx's error (DEADLINE_EXCEEDED or CANCELED).
func sleep(ctx context.Context, ms uint32) error {
	if ms == 0 {
		return nil
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	}
}
