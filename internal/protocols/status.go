package protocols

import (
	"errors"
	"net/http"
	"strings"

	"connectrpc.com/connect"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
)

// connectError is err, a call's outcome (a status, or an error that has
// one), as connect-go writes it in each protocol: the code, the message
// and the details.
func connectError(err error) error {
	st := status.Convert(err)
	if st.Code() == codes.OK {
		return nil
	}
	ce := connect.NewError(connect.Code(st.Code()), errors.New(st.Message()))
	for _, d := range st.Proto().GetDetails() {
		if detail, err := connect.NewErrorDetail(d); err == nil {
			ce.AddDetail(detail)
		}
	}
	return ce
}

// statusOf is err, an error connect-go gave (reading a request, sending a
// response), as a status.
func statusOf(err error) error {
	if err == nil {
		return nil
	}
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return status.Convert(err).Err()
	}
	sp := &spb.Status{Code: int32(ce.Code()), Message: ce.Message()}
	for _, d := range ce.Details() {
		sp.Details = append(sp.Details, &anypb.Any{TypeUrl: "type.googleapis.com/" + d.Type(), Value: d.Bytes()})
	}
	return status.FromProto(sp).Err()
}

// writeMetadata adds md to h as a gRPC server writes metadata: each key
// under its own name, a binary (-bin) value in base64. Keys the
// protocols reserve (content-type, grpc-*, connect-*, trailer-*, and the
// hop-by-hop ones) are left out: a method cannot forge its status.
func writeMetadata(h http.Header, md metadata.MD) {
	for k, vs := range md {
		if reserved(k) {
			continue
		}
		bin := strings.HasSuffix(k, "-bin")
		for _, v := range vs {
			if bin {
				v = connect.EncodeBinaryHeader([]byte(v))
			}
			h.Add(k, v)
		}
	}
}

// reserved reports the metadata keys a method may not send as headers or
// trailers.
func reserved(k string) bool {
	switch k {
	case "content-type", "content-length", "content-encoding", "accept-encoding", "te", "trailer",
		"connection", "keep-alive", "transfer-encoding", "upgrade", "date", "server":
		return true
	}
	return strings.HasPrefix(k, "grpc-") || strings.HasPrefix(k, "connect-") || strings.HasPrefix(k, "trailer-") ||
		strings.HasPrefix(k, ":")
}
