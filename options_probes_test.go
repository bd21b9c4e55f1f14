package protorest_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// metadataProbes adds to the streamer a GetProbe that answers with the
// metadata it was called with, as "key=value" tags, for the keys the
// request's tags name. A name "status-N" sets header metadata
// x-http-code: N; "denied" fails with PERMISSION_DENIED.
type metadataProbes struct{ *streamer }

func (metadataProbes) GetProbe(ctx context.Context, req *confv1.Probe) (*confv1.Probe, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	resp := &confv1.Probe{Name: req.GetName()}
	for _, k := range req.GetTags() {
		for _, v := range md.Get(k) {
			resp.Tags = append(resp.Tags, k+"="+v)
		}
	}
	switch name := req.GetName(); {
	case name == "denied":
		return nil, status.Error(codes.PermissionDenied, "no")
	case len(name) > len("status-") && name[:len("status-")] == "status-":
		grpc.SetHeader(ctx, metadata.Pairs("x-http-code", name[len("status-"):]))
	}
	return resp, nil
}

// optionGateways serves metadataProbes in-process and through a real gRPC
// backend, with opts, and returns their URLs by kind.
func optionGateways(t *testing.T, opts ...protorest.Option) map[string]string {
	t.Helper()
	urls := map[string]string{}
	for _, kind := range []string{"in-process", "remote"} {
		srv := httptest.NewServer(probesGateway(t, kind, metadataProbes{newStreamer()}, opts...))
		t.Cleanup(srv.Close)
		urls[kind] = srv.URL
	}
	return urls
}
