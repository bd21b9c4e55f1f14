package main

import (
	"context"
	"encoding/base64"
	"strings"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	conformancev1 "github.com/protorest/protorest/e2e/conformance/internal/proto/connectrpc/conformance/v1"
)

// requestInfo is what the service echoes of a call, as the suite checks
// it: the request metadata the service saw (binary values in base64),
// the time left before the call's deadline if it has one, and the
// requests received.
func requestInfo(ctx context.Context, reqs []*anypb.Any) *conformancev1.ConformancePayload_RequestInfo {
	md, _ := metadata.FromIncomingContext(ctx)
	info := &conformancev1.ConformancePayload_RequestInfo{RequestHeaders: headers(md), Requests: reqs}
	if deadline, ok := ctx.Deadline(); ok {
		info.TimeoutMs = proto.Int64(max(time.Until(deadline), 0).Milliseconds())
	}
	return info
}

// headers is md as the suite's Header messages: -bin values base64
// encoded without padding, as Connect and gRPC put them on the wire.
func headers(md metadata.MD) []*conformancev1.Header {
	out := make([]*conformancev1.Header, 0, len(md))
	for key, values := range md {
		h := &conformancev1.Header{Name: key, Value: values}
		if strings.HasSuffix(key, "-bin") {
			h.Value = make([]string, len(values))
			for i, v := range values {
				h.Value[i] = base64.RawStdEncoding.EncodeToString([]byte(v))
			}
		}
		out = append(out, h)
	}
	return out
}

// metadataOf is the metadata a response definition asks for: keys in
// lower case, -bin values decoded from base64 (padded or not; a value
// that is no base64 is kept as it is).
func metadataOf(hs []*conformancev1.Header) metadata.MD {
	md := metadata.MD{}
	for _, h := range hs {
		key := strings.ToLower(h.GetName())
		for _, v := range h.GetValue() {
			if strings.HasSuffix(key, "-bin") {
				if b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "=")); err == nil {
					v = string(b)
				}
			}
			md.Append(key, v)
		}
	}
	return md
}

// asAny is m in an Any, for RequestInfo.requests and error details.
func asAny(m proto.Message) *anypb.Any {
	a, err := anypb.New(m)
	if err != nil {
		panic(err) // only for a message without a registered type: not ours
	}
	return a
}
