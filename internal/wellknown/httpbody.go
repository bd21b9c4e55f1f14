package wellknown

import "google.golang.org/protobuf/reflect/protoreflect"

// HTTPBody are the fields of google.api.HttpBody, found by number so
// that any descriptor of it (generated or dynamic) works. A request or
// response of this type is its data, raw, typed by its content type.
type HTTPBody struct {
	ContentType, Data protoreflect.FieldDescriptor
}

// HTTPBodyOf returns the fields of md when it is google.api.HttpBody, else
// nil.
func HTTPBodyOf(md protoreflect.MessageDescriptor) *HTTPBody {
	if md == nil || md.FullName() != "google.api.HttpBody" {
		return nil
	}
	f := &HTTPBody{ContentType: md.Fields().ByNumber(1), Data: md.Fields().ByNumber(2)}
	if f.ContentType == nil || f.Data == nil {
		return nil
	}
	return f
}
