package services

import (
	"context"
	"io"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	examplev1 "github.com/protorest/protorest/examples/example/v1"
)

type mySvc struct {
	examplev1.UnimplementedMySvcServer
}

// NewMySvc returns the example.v1.MySvc service: Upper upper-cases the
// message, Echo prefixes it with "echo: ", Watch ticks and Chat answers
// each message upper-cased.
func NewMySvc() examplev1.MySvcServer {
	return mySvc{}
}

func (mySvc) Upper(_ context.Context, req *examplev1.UpperRequest) (*examplev1.UpperResponse, error) {
	return &examplev1.UpperResponse{Msg: strings.ToUpper(req.GetMsg())}, nil
}

func (mySvc) Echo(_ context.Context, req *examplev1.EchoRequest) (*examplev1.EchoResponse, error) {
	return &examplev1.EchoResponse{Msg: "echo: " + req.GetMsg()}, nil
}

func (mySvc) Watch(req *examplev1.WatchRequest, stream grpc.ServerStreamingServer[examplev1.Tick]) error {
	count, interval := req.GetCount(), req.GetIntervalMs()
	if count == 0 {
		count = 10
	}
	if interval == 0 {
		interval = 1000
	}
	if count < 1 || count > 1000 {
		return status.Errorf(codes.InvalidArgument, "count %d: want 1 to 1000", count)
	}
	if interval < 10 || interval > 10000 {
		return status.Errorf(codes.InvalidArgument, "interval_ms %d: want 10 to 10000", interval)
	}
	ticker := time.NewTicker(time.Duration(interval) * time.Millisecond)
	defer ticker.Stop()
	for seq := int32(1); ; seq++ {
		if err := stream.Send(&examplev1.Tick{Seq: seq, Time: timestamppb.Now()}); err != nil {
			return err
		}
		if seq == count {
			return nil
		}
		select {
		case <-ticker.C:
		case <-stream.Context().Done():
			return status.FromContextError(stream.Context().Err()).Err()
		}
	}
}

func (mySvc) Chat(stream grpc.BidiStreamingServer[examplev1.ChatMessage, examplev1.ChatMessage]) error {
	for {
		m, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := stream.Send(&examplev1.ChatMessage{Msg: strings.ToUpper(m.GetMsg())}); err != nil {
			return err
		}
	}
}
