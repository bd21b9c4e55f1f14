package main

import (
	"context"
	"errors"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/anypb"

	conformancev1 "github.com/protorest/protorest/e2e/conformance/internal/proto/connectrpc/conformance/v1"
)

// ClientStream reads every request, then answers once as Unary does, by
// the first request's response definition, echoing all the requests.
func (conformanceService) ClientStream(stream grpc.ClientStreamingServer[conformancev1.ClientStreamRequest, conformancev1.ClientStreamResponse]) error {
	var def *conformancev1.UnaryResponseDefinition
	var reqs []*anypb.Any
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if len(reqs) == 0 {
			def = req.GetResponseDefinition()
		}
		reqs = append(reqs, asAny(req))
	}
	payload, err := unaryPayload(stream.Context(), stream, def, reqs)
	if err != nil {
		return err
	}
	return stream.SendAndClose(&conformancev1.ClientStreamResponse{Payload: payload})
}

// ServerStream sends the response header at once, then each response's
// data after the delay (the first with the request info), then the
// definition's error if any (with the request info in its details when
// no response was sent).
func (conformanceService) ServerStream(req *conformancev1.ServerStreamRequest, stream grpc.ServerStreamingServer[conformancev1.ServerStreamResponse]) error {
	def := req.GetResponseDefinition()
	if def == nil {
		return nil
	}
	if err := stream.SendHeader(metadataOf(def.GetResponseHeaders())); err != nil {
		return err
	}
	stream.SetTrailer(metadataOf(def.GetResponseTrailers()))
	w := responseWriter[conformancev1.ServerStreamResponse]{stream: stream, def: def,
		wrap: func(p *conformancev1.ConformancePayload) *conformancev1.ServerStreamResponse {
			return &conformancev1.ServerStreamResponse{Payload: p}
		}}
	info := requestInfo(stream.Context(), []*anypb.Any{asAny(req)})
	for len(w.remaining()) > 0 {
		if err := w.send(info); err != nil {
			return err
		}
		info = nil // only the first response carries it
	}
	return w.finish(info)
}

// BidiStream answers by the first request's response definition. Full
// duplex (as the first request says): a response after each request,
// with the requests received since the last response (the first also
// with the rest of the request info), then, once the client is done, the
// responses left. Half duplex: the response header is held until the
// client is done (an HTTP/1.1 server may stop reading once it answers),
// then every response, the first with all the requests.
func (conformanceService) BidiStream(stream grpc.BidiStreamingServer[conformancev1.BidiStreamRequest, conformancev1.BidiStreamResponse]) error {
	var w responseWriter[conformancev1.BidiStreamResponse]
	var reqs []*anypb.Any
	fullDuplex, first := false, true
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		reqs = append(reqs, asAny(req))
		if first {
			first, fullDuplex = false, req.GetFullDuplex()
			w = responseWriter[conformancev1.BidiStreamResponse]{stream: stream, def: req.GetResponseDefinition(),
				wrap: func(p *conformancev1.ConformancePayload) *conformancev1.BidiStreamResponse {
					return &conformancev1.BidiStreamResponse{Payload: p}
				}}
			if w.def != nil {
				header := metadataOf(w.def.GetResponseHeaders())
				if fullDuplex {
					err = stream.SendHeader(header)
				} else {
					err = stream.SetHeader(header)
				}
				if err != nil {
					return err
				}
				stream.SetTrailer(metadataOf(w.def.GetResponseTrailers()))
			}
		}
		if !fullDuplex {
			continue
		}
		if len(w.remaining()) == 0 {
			break // nothing more to answer: end with the definition's error
		}
		if err := w.send(w.info(requestInfo(stream.Context(), reqs), reqs)); err != nil {
			return err
		}
		reqs = nil
	}
	if w.def == nil {
		return nil
	}
	info := requestInfo(stream.Context(), reqs)
	for len(w.remaining()) > 0 {
		if err := w.send(w.info(info, reqs)); err != nil {
			return err
		}
		reqs = nil
	}
	return w.finish(info)
}

// A responseWriter sends a stream's responses as its definition says.
type responseWriter[Resp any] struct {
	stream interface {
		Send(*Resp) error
		Context() context.Context
	}
	def  *conformancev1.StreamResponseDefinition
	wrap func(*conformancev1.ConformancePayload) *Resp
	sent int
}

// remaining is the data of the responses not sent yet.
func (w *responseWriter[Resp]) remaining() [][]byte {
	return w.def.GetResponseData()[min(w.sent, len(w.def.GetResponseData())):]
}

// info is the request info a response carries: all of it on the first,
// then only the requests received since the last response, if any.
func (w *responseWriter[Resp]) info(full *conformancev1.ConformancePayload_RequestInfo, reqs []*anypb.Any) *conformancev1.ConformancePayload_RequestInfo {
	if w.sent == 0 {
		return full
	}
	if len(reqs) == 0 {
		return nil
	}
	return &conformancev1.ConformancePayload_RequestInfo{Requests: reqs}
}

// send sends the next response after the definition's delay.
func (w *responseWriter[Resp]) send(info *conformancev1.ConformancePayload_RequestInfo) error {
	if err := sleep(w.stream.Context(), w.def.GetResponseDelayMs()); err != nil {
		return err
	}
	w.sent++
	return w.stream.Send(w.wrap(&conformancev1.ConformancePayload{Data: w.def.GetResponseData()[w.sent-1], RequestInfo: info}))
}

// finish ends the stream with the definition's error, if any; the error
// carries info when no response was sent.
func (w *responseWriter[Resp]) finish(info *conformancev1.ConformancePayload_RequestInfo) error {
	e := w.def.GetError()
	if e == nil {
		return nil
	}
	if w.sent > 0 {
		info = nil
	}
	return statusError(e, info)
}
