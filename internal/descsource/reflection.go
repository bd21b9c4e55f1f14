package descsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	rpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	rpbalpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
)

const (
	// maxInFlight bounds the requests sent on the reflection stream before
	// their answers are read: small enough that the requests never fill the
	// stream's flow-control window while the server waits for us to read.
	maxInFlight = 32
	// maxFiles bounds how many files one load accepts from a server.
	maxFiles = 100000
)

// FromReflection loads descriptors from the gRPC server behind conn with
// server reflection: grpc.reflection.v1, or grpc.reflection.v1alpha when the
// server answers UNIMPLEMENTED for v1.
//
// With no names it loads every service the server lists except the
// reflection services themselves (grpc.reflection.*) and
// grpc.health.v1.Health; with names, exactly those, each of which the server
// must list. All requests go over one reflection stream: the files defining
// the services, then, by file name, the dependencies the server did not send
// along. A well-known dependency (google/protobuf/, google/api/, google/rpc/)
// that the server does not have is taken from protoregistry.GlobalFiles.
//
// ctx bounds the whole load. Errors start with "reflection: "; those caused
// by the RPC wrap its status error (or ctx's error when ctx ended).
func FromReflection(ctx context.Context, conn grpc.ClientConnInterface, names ...string) (*Set, error) {
	if conn == nil {
		return nil, errors.New("reflection: no connection")
	}
	ctx, cancel := context.WithCancel(ctx) // ends the stream whatever happens
	defer cancel()

	c, listed, err := open(ctx, conn)
	if err != nil {
		return nil, err
	}
	defer c.s.CloseSend()

	var wanted []string
	if len(names) == 0 {
		for _, name := range listed {
			if !excluded(name) {
				wanted = append(wanted, name)
			}
		}
	} else {
		wanted = dedupe(names)
		for _, name := range wanted {
			if _, ok := slices.BinarySearch(listed, name); !ok {
				return nil, fmt.Errorf("reflection: service %q not found on the server (%s)", name, serves(listed))
			}
		}
	}

	if err := c.fetchServices(wanted); err != nil {
		return nil, err
	}
	if err := c.fetchDependencies(); err != nil {
		return nil, err
	}
	files, err := newFiles(c.files)
	if err != nil {
		return nil, fmt.Errorf("reflection: the server's descriptors are invalid: %w", err)
	}
	set := &Set{Files: files}
	for _, name := range wanted {
		sd, err := findService(files, name)
		if err != nil {
			return nil, fmt.Errorf("reflection: service %q %s in the descriptors the server sent", name, err)
		}
		set.Services = append(set.Services, sd)
	}
	sortServices(set.Services)
	return set, nil
}

// excluded reports whether a service the server lists is left out when no
// names are given.
func excluded(name string) bool {
	return strings.HasPrefix(name, "grpc.reflection.") || name == "grpc.health.v1.Health"
}

// serves describes the services a server lists, for an error.
func serves(listed []string) string {
	var shown []string
	for _, name := range listed {
		if !excluded(name) {
			shown = append(shown, name)
		}
	}
	switch {
	case len(shown) == 0:
		return "it lists no services"
	case len(shown) > 10:
		return fmt.Sprintf("it lists %s and %d more", strings.Join(shown[:10], ", "), len(shown)-10)
	default:
		return "it lists " + strings.Join(shown, ", ")
	}
}

// A stream is a reflection stream in the v1 types; v1alpha streams are
// adapted to it.
type stream interface {
	Send(*rpb.ServerReflectionRequest) error
	Recv() (*rpb.ServerReflectionResponse, error)
	CloseSend() error
}

// v1alphaStream adapts a v1alpha stream to the v1 types, which have the
// same wire form.
type v1alphaStream struct {
	s grpc.BidiStreamingClient[rpbalpha.ServerReflectionRequest, rpbalpha.ServerReflectionResponse]
}

func (a v1alphaStream) Send(req *rpb.ServerReflectionRequest) error {
	var alpha rpbalpha.ServerReflectionRequest
	if err := convert(req, &alpha); err != nil {
		return err
	}
	return a.s.Send(&alpha)
}

func (a v1alphaStream) Recv() (*rpb.ServerReflectionResponse, error) {
	alpha, err := a.s.Recv()
	if err != nil {
		return nil, err
	}
	var resp rpb.ServerReflectionResponse
	if err := convert(alpha, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

func (a v1alphaStream) CloseSend() error { return a.s.CloseSend() }

func convert(from, to proto.Message) error {
	b, err := proto.Marshal(from)
	if err != nil {
		return err
	}
	return proto.Unmarshal(b, to)
}

// A client loads files over one reflection stream.
type client struct {
	ctx     context.Context
	s       stream
	version string
	files   map[string]*descriptorpb.FileDescriptorProto
}

// open starts a reflection stream, v1 or else v1alpha, and lists the
// server's services with it (sorted, without repeats): listing is the first
// exchange, the one that tells whether the server speaks v1.
func open(ctx context.Context, conn grpc.ClientConnInterface) (*client, []string, error) {
	c := &client{ctx: ctx, version: "grpc.reflection.v1", files: map[string]*descriptorpb.FileDescriptorProto{}}
	s, err := rpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err == nil {
		c.s = s
		var listed []string
		if listed, err = c.list(); err == nil {
			return c, listed, nil
		}
	}
	if status.Code(err) != codes.Unimplemented || ctx.Err() != nil {
		return nil, nil, c.rpcError("listing services", err)
	}
	// A failed stream is over: its status has been received.
	c.version = "grpc.reflection.v1alpha"
	alpha, err := rpbalpha.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err == nil {
		c.s = v1alphaStream{alpha}
		var listed []string
		if listed, err = c.list(); err == nil {
			return c, listed, nil
		}
	}
	if status.Code(err) == codes.Unimplemented && ctx.Err() == nil {
		return nil, nil, fmt.Errorf("reflection: the server does not support gRPC server reflection (grpc.reflection.v1 and grpc.reflection.v1alpha are UNIMPLEMENTED); enable reflection on the server, or supply its descriptors: %w", err)
	}
	return nil, nil, c.rpcError("listing services", err)
}

// rpcError describes an error of the stream while doing what.
func (c *client) rpcError(what string, err error) error {
	if ctxErr := c.ctx.Err(); ctxErr != nil {
		return fmt.Errorf("reflection: %s: %w", what, ctxErr)
	}
	if _, ok := c.ctx.Deadline(); ok && status.Code(err) == codes.DeadlineExceeded {
		// ctx's deadline, sent with the call, expired on the server a
		// moment before it expires here.
		return fmt.Errorf("reflection: %s: %w", what, context.DeadlineExceeded)
	}
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("reflection: %s: the server (%s) ended the stream without an answer", what, c.version)
	}
	return fmt.Errorf("reflection: %s (%s): %w", what, c.version, err)
}

func (c *client) list() ([]string, error) {
	resps, err := c.exchange([]*rpb.ServerReflectionRequest{{
		MessageRequest: &rpb.ServerReflectionRequest_ListServices{ListServices: "*"},
	}})
	if err != nil {
		return nil, err
	}
	var listed []string
	switch r := resps[0].MessageResponse.(type) {
	case *rpb.ServerReflectionResponse_ListServicesResponse:
		for _, s := range r.ListServicesResponse.GetService() {
			listed = append(listed, s.GetName())
		}
	case *rpb.ServerReflectionResponse_ErrorResponse:
		return nil, fmt.Errorf("reflection: listing services: the server (%s) answered with an error: %s", c.version, describe(r.ErrorResponse))
	default:
		return nil, fmt.Errorf("reflection: listing services: the server (%s) answered with %s", c.version, answer(resps[0]))
	}
	return dedupe(listed), nil
}

// exchange sends reqs on the stream, at most maxInFlight at a time, and
// returns the answers in order: a reflection server answers each request in
// turn. Errors of the stream itself come back as they are, for the caller
// to describe (open needs their status code).
func (c *client) exchange(reqs []*rpb.ServerReflectionRequest) ([]*rpb.ServerReflectionResponse, error) {
	resps := make([]*rpb.ServerReflectionResponse, 0, len(reqs))
	for batch := range slices.Chunk(reqs, maxInFlight) {
		for _, req := range batch {
			if err := c.s.Send(req); err != nil {
				if errors.Is(err, io.EOF) {
					// The stream is over; Recv has the reason.
					_, err = c.s.Recv()
					if err == nil {
						err = io.EOF
					}
				}
				return nil, err
			}
		}
		for range batch {
			resp, err := c.s.Recv()
			if err != nil {
				return nil, err
			}
			resps = append(resps, resp)
		}
	}
	return resps, nil
}

// fetchServices fetches the files defining the services names, and the
// dependencies the server sends along.
func (c *client) fetchServices(names []string) error {
	if len(names) == 0 {
		return nil
	}
	reqs := make([]*rpb.ServerReflectionRequest, len(names))
	for i, name := range names {
		reqs[i] = &rpb.ServerReflectionRequest{
			MessageRequest: &rpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: name},
		}
	}
	resps, err := c.exchange(reqs)
	if err != nil {
		return c.rpcError("fetching service descriptors", err)
	}
	for i, resp := range resps {
		switch r := resp.MessageResponse.(type) {
		case *rpb.ServerReflectionResponse_FileDescriptorResponse:
			if err := c.add(r.FileDescriptorResponse); err != nil {
				return err
			}
		case *rpb.ServerReflectionResponse_ErrorResponse:
			return fmt.Errorf("reflection: the server lists service %q but cannot describe it: %s", names[i], describe(r.ErrorResponse))
		default:
			return fmt.Errorf("reflection: asked for the file defining %q, the server (%s) answered with %s", names[i], c.version, answer(resp))
		}
	}
	return nil
}

// fetchDependencies fetches by file name, round after round, the imports of
// the files loaded that are not loaded yet, falling back to GlobalFiles for
// the well-known files the server does not have.
func (c *client) fetchDependencies() error {
	for {
		importer := map[string]string{} // missing file → a file importing it
		for _, name := range sortedKeys(c.files) {
			for _, dep := range c.files[name].GetDependency() {
				if _, ok := c.files[dep]; !ok {
					if _, seen := importer[dep]; !seen {
						importer[dep] = name
					}
				}
			}
		}
		if len(importer) == 0 {
			return nil
		}
		missing := sortedKeys(importer)
		reqs := make([]*rpb.ServerReflectionRequest, len(missing))
		for i, name := range missing {
			reqs[i] = &rpb.ServerReflectionRequest{
				MessageRequest: &rpb.ServerReflectionRequest_FileByFilename{FileByFilename: name},
			}
		}
		resps, err := c.exchange(reqs)
		if err != nil {
			return c.rpcError("fetching dependencies", err)
		}
		for i, resp := range resps {
			name := missing[i]
			switch r := resp.MessageResponse.(type) {
			case *rpb.ServerReflectionResponse_FileDescriptorResponse:
				if err := c.add(r.FileDescriptorResponse); err != nil {
					return err
				}
			case *rpb.ServerReflectionResponse_ErrorResponse:
				if _, ok := c.files[name]; ok {
					break // sent along with another file meanwhile
				}
				if fd := knownFile(name); fd != nil {
					c.files[name] = fd
					break
				}
				return fmt.Errorf("reflection: the server does not have %q, imported by %q: %s", name, importer[name], describe(r.ErrorResponse))
			default:
				return fmt.Errorf("reflection: asked for file %q, the server (%s) answered with %s", name, c.version, answer(resp))
			}
		}
		// Every round must load what it asked for, so that the loop ends.
		for _, name := range missing {
			if _, ok := c.files[name]; ok {
				continue
			}
			if fd := knownFile(name); fd != nil {
				c.files[name] = fd
				continue
			}
			return fmt.Errorf("reflection: asked for file %q (imported by %q), the server sent other files", name, importer[name])
		}
	}
}

// add decodes the files of a response, keeping the first copy of each.
func (c *client) add(r *rpb.FileDescriptorResponse) error {
	for _, b := range r.GetFileDescriptorProto() {
		fd := new(descriptorpb.FileDescriptorProto)
		if err := unmarshal.Unmarshal(b, fd); err != nil {
			return fmt.Errorf("reflection: the server sent a malformed file descriptor: %w", err)
		}
		name := fd.GetName()
		if name == "" {
			return errors.New("reflection: the server sent a file descriptor without a name")
		}
		if _, ok := c.files[name]; ok {
			continue
		}
		if len(c.files) >= maxFiles {
			return fmt.Errorf("reflection: the server sent more than %d files", maxFiles)
		}
		c.files[name] = fd
	}
	return nil
}

// describe renders a reflection error response.
func describe(e *rpb.ErrorResponse) string {
	code := codes.Code(e.GetErrorCode())
	if msg := e.GetErrorMessage(); msg != "" {
		return fmt.Sprintf("%s (%s)", msg, code)
	}
	return code.String()
}

// answer names the kind of an unexpected response.
func answer(resp *rpb.ServerReflectionResponse) string {
	switch resp.MessageResponse.(type) {
	case nil:
		return "an empty response"
	case *rpb.ServerReflectionResponse_FileDescriptorResponse:
		return "file descriptors"
	case *rpb.ServerReflectionResponse_AllExtensionNumbersResponse:
		return "extension numbers"
	case *rpb.ServerReflectionResponse_ListServicesResponse:
		return "a list of services"
	case *rpb.ServerReflectionResponse_ErrorResponse:
		return "an error"
	default:
		return fmt.Sprintf("an unknown response %T", resp.MessageResponse)
	}
}
