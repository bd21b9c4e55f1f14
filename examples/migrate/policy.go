package main

import (
	"fmt"
	"net/http"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	notesv1 "github.com/protorest/protorest/examples/migrate/proto/notes/v1"
)

// The policy both gateways apply, written once: each gateway's program
// (grpcgateway.go, protorest.go) only plugs it into its options.

// jsonOptions write proto field names and leave unset fields out
// (grpc-gateway's WithMarshalerOption(MIMEWildcard, &JSONPb{…}),
// protorest's WithMarshalOptions).
var jsonOptions = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: false}

// sessionMetadata is the annotator (WithMetadata in both): the session
// cookie becomes authorization metadata, which no client header may set,
// and X-Request-Id, which neither gateway forwards by default, becomes
// x-request-id.
func sessionMetadata(r *http.Request) metadata.MD {
	md := metadata.MD{}
	if c, err := r.Cookie("session"); err == nil {
		md.Append("authorization", "Bearer "+c.Value)
	}
	if id := r.Header.Get("X-Request-Id"); id != "" {
		md.Append("x-request-id", id)
	}
	return md
}

// setSession is the response hook (WithForwardResponseOption,
// WithResponseHook): a Login reply's token becomes the session cookie, and
// x-http-code header metadata becomes the status (grpc-gateway's
// documented example), with a Location for a created note.
func setSession(w http.ResponseWriter, resp proto.Message, header metadata.MD) error {
	if login, ok := resp.(*notesv1.LoginReply); ok {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: login.GetSessionToken(), Path: "/", HttpOnly: true})
	}
	codes := header.Get("x-http-code")
	if len(codes) == 0 {
		return nil
	}
	code, err := strconv.Atoi(codes[0])
	if err != nil {
		return err
	}
	w.Header().Del("Grpc-Metadata-X-Http-Code")
	if note, ok := resp.(*notesv1.Note); ok && code == http.StatusCreated {
		w.Header().Set("Location", "/v1/notes/"+note.GetNoteId())
	}
	w.WriteHeader(code)
	return nil
}

// hideInternal is the stream error handler: an INTERNAL error that ends a
// stream is reported without its message, which may name internals.
func hideInternal(err error) *status.Status {
	st := status.Convert(err)
	if st.Code() == codes.Internal {
		return status.New(codes.Internal, "internal error")
	}
	return st
}

// writeRoutingError is the routing error handler: no route (404) or not
// this method (405), as a small JSON object.
func writeRoutingError(w http.ResponseWriter, r *http.Request, httpStatus int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpStatus)
	fmt.Fprintf(w, "{\"error\":%q,\"method\":%q,\"path\":%q}\n", http.StatusText(httpStatus), r.Method, r.URL.Path)
}

// hello is the custom route, GET /v1/hello/{name}.
func hello(w http.ResponseWriter, name string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "hello, %s\n", name)
}
