package remote

import (
	"context"
	"crypto/sha256"
	"errors"
	"slices"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/descsource"
	"github.com/protorest/protorest/internal/plan"
	"github.com/protorest/protorest/internal/resolve"
)

// Options say how a backend is loaded (protorest.RemoteOption).
type Options struct {
	// Load reads the backend's descriptors.
	Load func(ctx context.Context, conn grpc.ClientConnInterface) (*descsource.Set, error)
	// Pending keeps a backend whose descriptors cannot be loaded yet.
	Pending bool
	// MaxMessage limits each message received from the backend, when
	// MaxMessageSet; else the gateway's response limit does. 0 is none.
	MaxMessage    int
	MaxMessageSet bool
	// MaxHeader limits the backend's response metadata (see
	// RecvLimit.WithMaxHeader); 0 is none.
	MaxHeader int
}

// ErrNotLoaded is wrapped by the error of a load that could not read a
// backend's descriptors (as opposed to descriptors whose rules cannot be
// served).
var ErrNotLoaded = errors.New("protorest: backend descriptors not loaded")

// notLoadedError is a failure to load descriptors; the cause names where
// they came from ("reflection: …", "descriptor set x.binpb: …").
type notLoadedError struct{ err error }

func (e notLoadedError) Error() string        { return "protorest: " + e.err.Error() }
func (e notLoadedError) Unwrap() error        { return e.err }
func (e notLoadedError) Is(target error) bool { return target == ErrNotLoaded }

// Backends are a gateway's remote backends: it registers them, reloads
// them, and routes their methods through Replace.
type Backends struct {
	Config *config.Config
	Types  *resolve.Types // is given every backend's types
	// Replace swaps a backend's routes and services for new ones, all or
	// nothing.
	Replace func(drop, add plan.Entries, dropServices, services []string) error

	loadMu sync.Mutex // serialises loads
	mu     sync.Mutex // guards list and the backends' fields
	list   []*Backend
}

// A Backend is one registered backend: how to load its descriptors, and
// what the last load registered. Its fields are guarded by Backends.mu.
type Backend struct {
	conn     grpc.ClientConnInterface
	recv     RecvLimit
	load     func(context.Context, grpc.ClientConnInterface) (*descsource.Set, error)
	entries  plan.Entries
	services []string
	descs    []protoreflect.ServiceDescriptor // of services
	types    *dynamicpb.Types
	err      error // why nothing is loaded yet, for a pending backend

	fingerprint [sha256.Size]byte // of the descriptors loaded
}

// Register loads the backend over conn and routes its methods. A
// pending backend that cannot be loaded stays registered, and the error
// (wrapping ErrNotLoaded) is returned all the same.
func (b *Backends) Register(ctx context.Context, conn grpc.ClientConnInterface, o Options) error {
	maxMessage := b.Config.Response.MaxBytes
	if o.MaxMessageSet {
		maxMessage = o.MaxMessage
	}
	rm := &Backend{conn: conn, load: o.Load, recv: NewRecvLimit(maxMessage).WithMaxHeader(o.MaxHeader)}
	err := b.load(ctx, rm)
	if err != nil && !(o.Pending && errors.Is(err, ErrNotLoaded)) {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		rm.err = err
	}
	b.list = append(b.list, rm)
	return err
}

// Reload loads every backend again; a backend that fails keeps its
// routes. It returns the errors, joined.
func (b *Backends) Reload(ctx context.Context) error {
	b.mu.Lock()
	list := slices.Clone(b.list)
	b.mu.Unlock()
	var errs []error
	for _, rm := range list {
		if err := b.load(ctx, rm); err != nil {
			b.mu.Lock()
			if rm.entries == nil {
				rm.err = err
			}
			b.mu.Unlock()
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Pending reports whether a pending backend has no routes yet.
func (b *Backends) Pending() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, rm := range b.list {
		if rm.err != nil {
			return true
		}
	}
	return false
}

// List returns the backends, in the order registered.
func (b *Backends) List() []*Backend {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.list)
}

// Entries are the routes rm's last load registered.
func (rm *Backend) Entries() plan.Entries { return rm.entries }

// Services are the services rm's last load registered.
func (rm *Backend) Services() []string { return rm.services }

// Method returns the descriptor of a method that a backend's last load
// registered, or nil.
func (b *Backends) Method(service protoreflect.FullName, method protoreflect.Name) protoreflect.MethodDescriptor {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, rm := range b.list {
		for _, sd := range rm.descs {
			if sd.FullName() == service {
				return sd.Methods().ByName(method)
			}
		}
	}
	return nil
}
