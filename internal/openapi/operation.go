package openapi

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/render"
)

// Media types of the document.
const (
	mediaJSON   = "application/json"
	mediaAny    = "*/*" // google.api.HttpBody: any content, as sent
	statusRef   = "google.rpc.Status"
	errorDetail = "An error: a google.rpc.Status, with the HTTP status its code maps to."
)

// operation fills in op, the operation of route r at path p, but for its
// ID.
func (b *builder) operation(op *Operation, r *Route, p *openPath) {
	if r.Rule == nil {
		op.Summary, op.Description = r.Summary, r.Description
		if op.Summary == "" {
			op.Summary = "A custom route."
		}
		op.Parameters = b.appendPathParameters(nil, p, nil)
		if b.customResponses == nil {
			b.customResponses = map[string]*Response{"default": {Description: "What the route's handler writes."}}
		}
		op.Responses = b.customResponses
		return
	}
	rule := r.Rule
	md := rule.Method
	sd := md.Parent()
	op.Tags = b.tags(sd.(protoreflect.ServiceDescriptor))
	op.Summary, op.Description = b.comment(md).split()
	op.GRPCMethod = strings.TrimPrefix(rule.FullMethod, "/")
	if opts, ok := md.Options().(*descriptorpb.MethodOptions); ok && opts.GetDeprecated() {
		op.Deprecated = true
	}
	query := b.queryParameters(rule.Request)
	if n := len(p.params) + len(query); n > 0 {
		op.Parameters = append(b.appendPathParameters(make([]*Parameter, 0, n), p, rule.Request.Vars), query...)
	}
	switch {
	case md.IsStreamingClient() && md.IsStreamingServer():
		op.Streaming = "bidi"
	case md.IsStreamingClient():
		op.Streaming = "client"
	case md.IsStreamingServer():
		op.Streaming = "server"
	}
	op.RequestBody = b.requestBody(rule.Request, md.IsStreamingClient())
	if op.Streaming != "" {
		op.Description = joinParagraphs(op.Description, streamingNote(md))
	}
	for _, v := range rule.Request.Vars {
		if why := v.Field.Refused(); why != "" {
			op.Description = joinParagraphs(op.Description, refusedNote(why))
			break
		}
	}
	op.Responses = b.responses(rule.Response, md.IsStreamingServer(), rule.Request.Check != nil)
}

// responses returns the responses of a rule whose response plan is resp:
// its success, the error response, and when its requests are checked
// against rules, a 400 that says so. Rules that answer alike share them.
func (b *builder) responses(resp *render.Response, serverStream, checked bool) map[string]*Response {
	key := responsesKey{output: resp.Output.FullName(), status: resp.Status, serverStream: serverStream, checked: checked}
	if f := resp.Body(); f != nil {
		key.body = f.FullName()
	}
	if rs, ok := b.responseSets[key]; ok {
		return rs
	}
	ok := &Response{Description: http.StatusText(resp.Status)}
	if resp.Status != http.StatusNoContent {
		if serverStream {
			ok.Content = b.streamContent(resp)
		} else {
			ok.Content = b.content(resp)
		}
	}
	if b.errorRef == nil {
		b.errorRef = &Response{Ref: "#/components/responses/" + errorResponse}
	}
	rs := map[string]*Response{strconv.Itoa(resp.Status): ok, "default": b.errorRef}
	if checked {
		rs["400"] = &Response{Ref: b.errorRef.Ref, Description: checkedDetail}
	}
	b.responseSets[key] = rs
	return rs
}

// tags returns the tags of an operation of service sd: its name. The
// operations of a service share them.
func (b *builder) tags(sd protoreflect.ServiceDescriptor) []string {
	tags, ok := b.tagLists[sd.FullName()]
	if !ok {
		tags = []string{string(sd.FullName())}
		b.tagLists[sd.FullName()] = tags
	}
	return tags
}

// A responsesKey is what decides an operation's responses.
type responsesKey struct {
	output, body protoreflect.FullName // the output message; its response_body field, or ""
	status       int
	serverStream bool
	checked      bool // requests are checked against rules (WithValidation)
}

// checkedDetail describes the 400 of a rule whose requests are checked
// against rules.
const checkedDetail = "The request breaks a rule of its message (INVALID_ARGUMENT): a google.rpc.BadRequest names each field. The method is not called."

// requestBody returns the body of a rule, or nil when it has none: the
// request message less the fields the path sets (body "*"), or the body
// field. A client stream's body is a sequence of such messages. Rules
// that read alike share it.
func (b *builder) requestBody(req *bind.Request, clientStream bool) *RequestBody {
	key := bodyKey{input: req.Input.FullName(), clientStream: clientStream}
	var drop []string
	switch req.Body.Kind {
	case bind.BodyNone:
		return nil
	case bind.BodyAll:
		drop = b.pathSetFields(req)
		key.drop = strings.Join(drop, "\x00")
	case bind.BodyField:
		key.field = req.Body.Path[len(req.Body.Path)-1].FullName()
	}
	if body, ok := b.bodies[key]; ok {
		return body
	}
	body := &RequestBody{Required: true}
	var s *Schema
	switch {
	case req.Body.Raw != nil:
	case req.Body.Kind == bind.BodyAll:
		s = b.bodyAll(req.Input, drop)
	default:
		s = b.valueSchema(req.Body.Path[len(req.Body.Path)-1])
	}
	switch {
	case req.Body.Raw != nil:
		body.Description = "The body as it is, typed by its Content-Type (google.api.HttpBody)."
		body.Content = oneMediaType(mediaAny, nil)
	case clientStream:
		body.Description = "A stream of messages: JSON values one after another, newline-delimited or concatenated."
		body.Content = oneMediaType(mediaJSON, s)
		body.Content.Add(mediaNDJSON, &MediaType{Schema: s})
	default:
		body.Content = oneMediaType(mediaJSON, s)
	}
	b.bodies[key] = body
	return body
}

// A bodyKey is what decides a rule's request body.
type bodyKey struct {
	input, field protoreflect.FullName // the request message; the body field, or "" for body "*"
	drop         string                // body "*": the fields the path sets, NUL between them
	clientStream bool
}

// pathSetFields returns the JSON names of the top-level fields of a
// request that its path sets.
func (b *builder) pathSetFields(req *bind.Request) []string {
	var drop []string
	for _, v := range req.Vars {
		if path := v.Field.Path(); len(path) == 1 {
			drop = append(drop, b.fieldName(path[0]))
		}
	}
	return drop
}

// bodyAll is the schema of a body "*" of a request message md: md less
// the top-level fields the path sets, drop. A field under one that the
// path sets, such as book.name, stays: the path's value wins.
func (b *builder) bodyAll(md protoreflect.MessageDescriptor, drop []string) *Schema {
	whole := b.messageSchema(md)
	comp := b.schemas[string(md.FullName())]
	if len(drop) == 0 || comp == nil {
		return whole
	}
	s := b.schema(Schema{Type: "object", Description: comp.Description, Properties: &Properties{}, Oneofs: comp.Oneofs})
	for i, name := range comp.Properties.Names {
		if !slices.Contains(drop, name) {
			s.Properties.Add(name, comp.Properties.Schemas[i])
		}
	}
	for _, name := range comp.Required {
		if !slices.Contains(drop, name) {
			s.Required = append(s.Required, name)
		}
	}
	for name, dep := range comp.DependentSchemas {
		if !slices.Contains(drop, name) {
			if s.DependentSchemas == nil {
				s.DependentSchemas = map[string]*Schema{}
			}
			s.DependentSchemas[name] = dep
		}
	}
	return s
}

// content returns the content of a success response: JSON of the output
// message or its response_body field, or any content for
// google.api.HttpBody.
func (b *builder) content(resp *render.Response) *MediaTypes {
	if resp.Raw != nil {
		return oneMediaType(mediaAny, nil)
	}
	return oneMediaType(mediaJSON, b.responseSchema(resp))
}

// oneMediaType is the content of a body of one media type, name, whose
// schema is s (nil for any content).
func oneMediaType(name string, s *Schema) *MediaTypes {
	return &MediaTypes{Names: []string{name}, Types: []*MediaType{{Schema: s}}}
}

// responseSchema is the schema of one rendered response message.
func (b *builder) responseSchema(resp *render.Response) *Schema {
	if f := resp.Body(); f != nil {
		return b.valueSchema(f)
	}
	return b.messageSchema(resp.Output)
}

// errorResponse is the name of the response of every error.
const errorResponse = "Error"

func (b *builder) errorResponse() *Response {
	return &Response{Description: errorDetail, Content: oneMediaType(mediaJSON, b.status())}
}

// status returns a reference to google.rpc.Status, the error schema.
func (b *builder) status() *Schema {
	return b.messageSchema(statusDescriptor())
}

func joinParagraphs(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}

// operationIDs gives each operation its ID: Service_Method for a rule,
// Service_Method_1, _2… for its additional bindings, and the method in
// lower case after it for each method of a rule of any method ("*");
// a service's short name that two packages share is its full name with
// "_" for ".". A custom route's ID is its method and path, as
// get_files_id. An ID already taken gets _2, _3….
type operationIDs struct {
	routes []Route
	prefix map[protoreflect.FullName]string // a service's ID prefix: its short or full name, and "_"
	taken  map[string]bool
	next   map[string]int // the next suffix to try after an ID
	buf    []byte         // the ID being written
}

func newOperationIDs(routes []Route) *operationIDs {
	ids := &operationIDs{routes: routes, prefix: map[protoreflect.FullName]string{}, taken: make(map[string]bool, len(routes)), next: map[string]int{}}
	short := map[protoreflect.Name]int{} // services by short name
	for _, r := range routes {
		if r.Rule == nil {
			continue
		}
		sd := r.Rule.Method.Parent()
		if _, ok := ids.prefix[sd.FullName()]; !ok {
			ids.prefix[sd.FullName()] = ""
			short[sd.Name()]++
		}
	}
	for name := range ids.prefix {
		svc := string(name.Name())
		if short[name.Name()] > 1 {
			svc = strings.ReplaceAll(string(name), ".", "_")
		}
		ids.prefix[name] = svc + "_"
	}
	return ids
}

// id returns the ID of routes[i] for method; anyMethod says the route
// stands for several methods.
func (ids *operationIDs) id(i int, method string, anyMethod bool) string {
	r := &ids.routes[i]
	id := ids.buf[:0]
	if r.Rule == nil {
		id = append(id, strings.ToLower(method)...)
		id = append(id, sanitize(r.Template.String())...)
	} else {
		md := r.Rule.Method
		id = append(id, ids.prefix[md.Parent().FullName()]...)
		id = append(id, md.Name()...)
		if r.Rule.Binding > 0 {
			id = strconv.AppendInt(append(id, '_'), int64(r.Rule.Binding), 10)
		}
		if anyMethod {
			id = append(append(id, '_'), strings.ToLower(method)...)
		}
	}
	ids.buf = id
	if !ids.taken[string(id)] { // the usual case: an ID of its own, one allocation
		unique := string(id)
		ids.taken[unique] = true
		return unique
	}
	base := string(id)
	unique := base
	for ids.taken[unique] {
		n := max(ids.next[base], 2)
		ids.next[base] = n + 1
		unique = base + "_" + strconv.Itoa(n)
	}
	ids.taken[unique] = true
	return unique
}

// sanitize turns a template into an ID's tail: each run of characters
// other than letters and digits becomes "_" (variables keep their field
// path only): "/files/{id}" → "_files_id".
func sanitize(template string) string {
	var b strings.Builder
	skip := false
	under := false
	for _, r := range template {
		switch {
		case r == '=':
			skip = true
		case r == '}':
			skip = false
		case skip:
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			if under {
				b.WriteByte('_')
				under = false
			}
			b.WriteRune(r)
		default:
			under = true
		}
	}
	if b.Len() == 0 {
		return "_root"
	}
	return b.String() // a template starts with "/": so does this, with "_"
}
