package main

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	notesv1 "github.com/protorest/protorest/examples/migrate/proto/notes/v1"
)

// notes is the service both gateways serve. Sessions are tokens handed
// out by Login; a call's caller is the session its authorization metadata
// names.
type notes struct {
	notesv1.UnimplementedNotesServer

	mu       sync.Mutex
	sessions map[string]string // token → user
	notes    map[string]*notesv1.Note
	nextID   int
}

func newNotes() *notes {
	return &notes{
		sessions: map[string]string{},
		notes: map[string]*notesv1.Note{
			"1": {NoteId: "1", Title: "groceries", Tags: []string{"home"}, Kind: notesv1.Kind_KIND_LIST, Revision: 3, CreatedBy: "ada"},
			"2": {NoteId: "2", Title: "empty"},
		},
		nextID: 3,
	}
}

func (s *notes) Login(_ context.Context, req *notesv1.LoginRequest) (*notesv1.LoginReply, error) {
	if req.GetUser() == "" {
		return nil, status.Error(codes.InvalidArgument, "user is required")
	}
	token := "token-" + req.GetUser()
	s.mu.Lock()
	s.sessions[token] = req.GetUser()
	s.mu.Unlock()
	return &notesv1.LoginReply{User: req.GetUser(), SessionToken: token}, nil
}

func (s *notes) WhoAmI(ctx context.Context, _ *notesv1.WhoAmIRequest) (*notesv1.WhoAmIReply, error) {
	user, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	md, _ := metadata.FromIncomingContext(ctx)
	return &notesv1.WhoAmIReply{User: user, RequestId: strings.Join(md.Get("x-request-id"), ",")}, nil
}

func (s *notes) GetNote(_ context.Context, req *notesv1.GetNoteRequest) (*notesv1.Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.notes[req.GetNoteId()]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "note %q not found", req.GetNoteId())
	}
	return n, nil
}

// CreateNote asks the gateway for 201 Created with x-http-code header
// metadata, which the response hook turns into the status.
func (s *notes) CreateNote(ctx context.Context, req *notesv1.CreateNoteRequest) (*notesv1.Note, error) {
	user, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	n := &notesv1.Note{
		NoteId:    strconv.Itoa(s.nextID),
		Title:     req.GetNote().GetTitle(),
		Body:      req.GetNote().GetBody(),
		Tags:      req.GetNote().GetTags(),
		Kind:      req.GetNote().GetKind(),
		CreatedBy: user,
		Revision:  1,
	}
	s.nextID++
	s.notes[n.NoteId] = n
	s.mu.Unlock()
	grpc.SetHeader(ctx, metadata.Pairs("x-http-code", "201"))
	return n, nil
}

// WatchNotes sends count notes, then fails with an internal error whose
// message the gateways' stream error handler hides, if fail is set.
func (s *notes) WatchNotes(req *notesv1.WatchNotesRequest, stream grpc.ServerStreamingServer[notesv1.Note]) error {
	for i := range req.GetCount() {
		if err := stream.Send(&notesv1.Note{NoteId: strconv.Itoa(int(i) + 1), Title: "watched"}); err != nil {
			return err
		}
	}
	if req.GetFail() {
		return status.Error(codes.Internal, "database connection lost at 10.0.0.7")
	}
	return nil
}

// caller is the user of the session that the authorization metadata
// names, "Bearer <token>".
func (s *notes) caller(ctx context.Context) (string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, auth := range md.Get("authorization") {
		token, ok := strings.CutPrefix(auth, "Bearer ")
		if !ok {
			continue
		}
		s.mu.Lock()
		user, ok := s.sessions[token]
		s.mu.Unlock()
		if ok {
			return user, nil
		}
	}
	return "", status.Error(codes.Unauthenticated, "no session")
}
