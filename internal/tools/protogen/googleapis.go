package main

import (
	"bytes"
	"compress/gzip"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	// Every Go package of genproto's googleapis/api, googleapis/rpc and
	// googleapis/type (TestGoogleAPIsPackages keeps the list whole): the
	// files they register are the set.
	_ "google.golang.org/genproto/googleapis/api"
	_ "google.golang.org/genproto/googleapis/api/annotations"
	_ "google.golang.org/genproto/googleapis/api/configchange"
	_ "google.golang.org/genproto/googleapis/api/distribution"
	_ "google.golang.org/genproto/googleapis/api/error_reason"
	_ "google.golang.org/genproto/googleapis/api/expr/conformance/v1alpha1"
	_ "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
	_ "google.golang.org/genproto/googleapis/api/expr/v1beta1"
	_ "google.golang.org/genproto/googleapis/api/httpbody"
	_ "google.golang.org/genproto/googleapis/api/label"
	_ "google.golang.org/genproto/googleapis/api/metric"
	_ "google.golang.org/genproto/googleapis/api/monitoredres"
	_ "google.golang.org/genproto/googleapis/api/serviceconfig"
	_ "google.golang.org/genproto/googleapis/api/visibility"
	_ "google.golang.org/genproto/googleapis/rpc/code"
	_ "google.golang.org/genproto/googleapis/rpc/context"
	_ "google.golang.org/genproto/googleapis/rpc/context/attribute_context"
	_ "google.golang.org/genproto/googleapis/rpc/errdetails"
	_ "google.golang.org/genproto/googleapis/rpc/http"
	_ "google.golang.org/genproto/googleapis/rpc/status"
	_ "google.golang.org/genproto/googleapis/type/calendarperiod"
	_ "google.golang.org/genproto/googleapis/type/color"
	_ "google.golang.org/genproto/googleapis/type/date"
	_ "google.golang.org/genproto/googleapis/type/date_range"
	_ "google.golang.org/genproto/googleapis/type/date_time_range"
	_ "google.golang.org/genproto/googleapis/type/datetime"
	_ "google.golang.org/genproto/googleapis/type/dayofweek"
	_ "google.golang.org/genproto/googleapis/type/decimal"
	_ "google.golang.org/genproto/googleapis/type/expr"
	_ "google.golang.org/genproto/googleapis/type/fraction"
	_ "google.golang.org/genproto/googleapis/type/interval"
	_ "google.golang.org/genproto/googleapis/type/latlng"
	_ "google.golang.org/genproto/googleapis/type/localized_text"
	_ "google.golang.org/genproto/googleapis/type/money"
	_ "google.golang.org/genproto/googleapis/type/month"
	_ "google.golang.org/genproto/googleapis/type/phone_number"
	_ "google.golang.org/genproto/googleapis/type/postaladdress"
	_ "google.golang.org/genproto/googleapis/type/quaternion"
	_ "google.golang.org/genproto/googleapis/type/timeofday"
)

// googleapisName is where internal/descsource embeds the set.
const googleapisName = "internal/descsource/googleapis.binpb.gz"

// googleapisFile returns the googleapis files internal/descsource
// resolves .proto imports with: every google/… file the genproto packages
// above register but google/protobuf's (protocompile has those), as a
// FileDescriptorSet ordered by name, gzipped. The same packages give the
// same bytes.
func googleapisFile() (*pluginpb.CodeGeneratorResponse_File, error) {
	set := &descriptorpb.FileDescriptorSet{}
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if p := fd.Path(); strings.HasPrefix(p, "google/") && !strings.HasPrefix(p, "google/protobuf/") {
			set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
		}
		return true
	})
	slices.SortFunc(set.File, func(a, b *descriptorpb.FileDescriptorProto) int { return strings.Compare(a.GetName(), b.GetName()) })
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(set)
	if err != nil {
		return nil, err
	}
	var z bytes.Buffer
	w, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return &pluginpb.CodeGeneratorResponse_File{Name: proto.String(googleapisName), Content: proto.String(z.String())}, nil
}
