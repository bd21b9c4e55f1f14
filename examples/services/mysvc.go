package services

import (
	"context"
	"strings"

	examplev1 "github.com/protorest/protorest/examples/example/v1"
)

type mySvc struct {
	examplev1.UnimplementedMySvcServer
}

// NewMySvc returns the example.v1.MySvc service: Upper upper-cases the
// message and Echo prefixes it with "echo: ".
func NewMySvc() examplev1.MySvcServer {
	return mySvc{}
}

func (mySvc) Upper(_ context.Context, req *examplev1.UpperRequest) (*examplev1.UpperResponse, error) {
	return &examplev1.UpperResponse{Msg: strings.ToUpper(req.GetMsg())}, nil
}

func (mySvc) Echo(_ context.Context, req *examplev1.EchoRequest) (*examplev1.EchoResponse, error) {
	return &examplev1.EchoResponse{Msg: "echo: " + req.GetMsg()}, nil
}
