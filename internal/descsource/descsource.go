// Package descsource loads the descriptors of a remote gRPC backend's
// services: from the backend itself with gRPC server reflection, from a
// serialized FileDescriptorSet, or from a registry the caller already has.
//
// Every loader returns a Set whose Files hold each file the services need,
// dependencies included, so that dynamicpb and protojson can resolve every
// message, enum and google.protobuf.Any detail type they use. Options in
// files decoded from bytes are parsed with protoregistry.GlobalTypes as the
// extension resolver, so proto.GetExtension(md.Options(), annotations.E_Http)
// returns a method's google.api.http rule.
//
// Well-known and googleapis files (google/protobuf/…, and the google/api/…,
// google/rpc/… and google/type/… files of genproto's Go packages) that a
// backend, a descriptor set or the import paths leave out are supplied:
// from protoregistry.GlobalFiles when they are linked in, else from a
// descriptor set embedded here (see googleapisSet); any other missing file
// is an error that names it and the file importing it.
package descsource

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	// The google.api extensions (google.api.http above all) must be in
	// protoregistry.GlobalTypes for the options of decoded descriptors to be
	// parsed; these packages' files are taken from GlobalFiles (linkedFile).
	_ "google.golang.org/genproto/googleapis/api/annotations"
	_ "google.golang.org/genproto/googleapis/api/httpbody"
	_ "google.golang.org/genproto/googleapis/rpc/code"
	_ "google.golang.org/genproto/googleapis/rpc/errdetails"
	_ "google.golang.org/genproto/googleapis/rpc/status"
	_ "google.golang.org/protobuf/types/known/anypb"
	_ "google.golang.org/protobuf/types/known/apipb"
	_ "google.golang.org/protobuf/types/known/durationpb"
	_ "google.golang.org/protobuf/types/known/emptypb"
	_ "google.golang.org/protobuf/types/known/fieldmaskpb"
	_ "google.golang.org/protobuf/types/known/sourcecontextpb"
	_ "google.golang.org/protobuf/types/known/structpb"
	_ "google.golang.org/protobuf/types/known/timestamppb"
	_ "google.golang.org/protobuf/types/known/typepb"
	_ "google.golang.org/protobuf/types/known/wrapperspb"
)

// A Set is the result of loading descriptors.
type Set struct {
	// Files holds every file the services need, dependencies included.
	Files *protoregistry.Files
	// Services are the services loaded, sorted by full name.
	Services []protoreflect.ServiceDescriptor
}

// unmarshal decodes descriptors so that the extensions known to the binary
// (google.api.http among them) are parsed in options, not left unknown.
var unmarshal = proto.UnmarshalOptions{Resolver: protoregistry.GlobalTypes}

// FromFiles returns the services of files: the named ones, or with no names
// every service the files define. The Set's Files is files itself.
func FromFiles(files *protoregistry.Files, names ...string) (*Set, error) {
	if files == nil {
		return nil, errors.New("descriptors: no files (nil *protoregistry.Files)")
	}
	return selectServices(files, names, "the files")
}

// FromDescriptorSetFile reads the serialized google.protobuf.FileDescriptorSet
// at path; see FromDescriptorSet.
func FromDescriptorSetFile(path string, names ...string) (*Set, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("descriptor set: %w", err)
	}
	return fromDescriptorSet(data, "descriptor set "+path, names)
}

// FromDescriptorSet decodes a serialized google.protobuf.FileDescriptorSet
// (buf build -o set.binpb, protoc --descriptor_set_out --include_imports)
// and returns its services: the named ones, or with no names all of them.
// Well-known imports the set lacks are taken from
// protoregistry.GlobalFiles; any other missing import is an error naming
// the file and the import. A file that appears more than once must be the
// same each time (concatenated sets are valid sets).
func FromDescriptorSet(data []byte, names ...string) (*Set, error) {
	return fromDescriptorSet(data, "descriptor set", names)
}

func fromDescriptorSet(data []byte, where string, names []string) (*Set, error) {
	var fds descriptorpb.FileDescriptorSet
	if err := unmarshal.Unmarshal(data, &fds); err != nil {
		return nil, fmt.Errorf("%s: not a serialized google.protobuf.FileDescriptorSet: %w", where, err)
	}
	if len(fds.File) == 0 {
		return nil, fmt.Errorf("%s: contains no files", where)
	}
	protos := make(map[string]*descriptorpb.FileDescriptorProto, len(fds.File))
	for _, fd := range fds.File {
		name := fd.GetName()
		if name == "" {
			return nil, fmt.Errorf("%s: a file has no name", where)
		}
		if prev, ok := protos[name]; ok {
			if !proto.Equal(prev, fd) {
				return nil, fmt.Errorf("%s: file %q appears twice with different contents", where, name)
			}
			continue
		}
		protos[name] = fd
	}
	if err := completeWellKnown(protos, where); err != nil {
		return nil, err
	}
	files, err := newFiles(protos)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return selectServices(files, names, "the "+where)
}

// completeWellKnown adds to protos, from protoregistry.GlobalFiles, the
// well-known files they import but lack, and reports the first other
// import that is missing.
func completeWellKnown(protos map[string]*descriptorpb.FileDescriptorProto, where string) error {
	for {
		added := false
		for _, name := range sortedKeys(protos) {
			for _, dep := range protos[name].GetDependency() {
				if _, ok := protos[dep]; ok {
					continue
				}
				if fd := knownFile(dep); fd != nil {
					protos[dep] = fd
					added = true
					continue
				}
				return fmt.Errorf("%s: file %q imports %q, which is not in the set (build it with its imports: protoc --include_imports, or buf build)", where, name, dep)
			}
		}
		if !added {
			return nil
		}
	}
}

// newFiles builds a registry from a complete set of files.
func newFiles(protos map[string]*descriptorpb.FileDescriptorProto) (*protoregistry.Files, error) {
	set := &descriptorpb.FileDescriptorSet{File: make([]*descriptorpb.FileDescriptorProto, 0, len(protos))}
	for _, name := range sortedKeys(protos) {
		set.File = append(set.File, protos[name])
	}
	return protodesc.NewFiles(set)
}

// selectServices returns the Set of files with the named services, or with
// no names all the services in files. in says where the services were looked
// for, for errors.
func selectServices(files *protoregistry.Files, names []string, in string) (*Set, error) {
	set := &Set{Files: files}
	if len(names) == 0 {
		files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
			for i := range fd.Services().Len() {
				set.Services = append(set.Services, fd.Services().Get(i))
			}
			return true
		})
	} else {
		for _, name := range dedupe(names) {
			sd, err := findService(files, name)
			if err != nil {
				return nil, fmt.Errorf("service %q %s in %s", name, err, in)
			}
			set.Services = append(set.Services, sd)
		}
	}
	sortServices(set.Services)
	return set, nil
}

// errNotFound is findService's complaint about a name that is not defined.
var errNotFound = errors.New("not found")

// findService looks up the service name in files. Its errors read after the
// quoted name: `service "x.Y" <err>`.
func findService(files *protoregistry.Files, name string) (protoreflect.ServiceDescriptor, error) {
	full := protoreflect.FullName(name)
	if !full.IsValid() {
		return nil, errors.New("is not a valid full name (package.Service)")
	}
	d, err := files.FindDescriptorByName(full)
	if err != nil {
		return nil, errNotFound
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, fmt.Errorf("is not a service but a %s, defined", kind(d))
	}
	return sd, nil
}

func kind(d protoreflect.Descriptor) string {
	switch d.(type) {
	case protoreflect.MessageDescriptor:
		return "message"
	case protoreflect.EnumDescriptor:
		return "enum"
	case protoreflect.EnumValueDescriptor:
		return "enum value"
	case protoreflect.FieldDescriptor:
		return "field"
	case protoreflect.MethodDescriptor:
		return "method"
	case protoreflect.OneofDescriptor:
		return "oneof"
	default:
		return "descriptor"
	}
}

func sortServices(sds []protoreflect.ServiceDescriptor) {
	slices.SortFunc(sds, func(a, b protoreflect.ServiceDescriptor) int {
		return strings.Compare(string(a.FullName()), string(b.FullName()))
	})
}

// dedupe returns names sorted, without repeats.
func dedupe(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return slices.Compact(out)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
