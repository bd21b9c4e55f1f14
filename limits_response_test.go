package protorest_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/api/httpbody"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// largeReplies answers GetProbe and Download with responses of about
// size bytes: name "tags" a list of strings, name "blob" a bytes field
// (JSON: base64, a third larger), Download raw bytes; any other name a
// small probe.
func largeReplies(size int) *recorder {
	tags := &confv1.Probe{Name: "tags"}
	for i := 0; i < size/10; i++ {
		tags.Tags = append(tags.Tags, "tag-"+strconv.Itoa(i%100000))
	}
	blob := &confv1.Probe{Name: "blob", Blob: make([]byte, size)}
	raw := &httpbody.HttpBody{ContentType: "application/octet-stream", Data: make([]byte, size)}
	return &recorder{reply: func(method string, req proto.Message) (proto.Message, error) {
		switch name := req.(*confv1.Probe).GetName(); {
		case method == "Download":
			return raw, nil
		case name == "tags":
			return tags, nil
		case name == "blob":
			return blob, nil
		}
		return &confv1.Probe{Name: "small"}, nil
	}}
}

// wantTooLarge checks that r is exactly the 500 "response too large"
// error: a google.rpc.Status with code INTERNAL, and nothing of the
// response before or after it.
func wantTooLarge(t *testing.T, what string, code int, contentType, body string, limit string) {
	t.Helper()
	var st spb.Status
	if err := protojson.Unmarshal([]byte(body), &st); err != nil || code != 500 || contentType != "application/json" {
		t.Errorf("%s: %d %s %.200q (%v), want 500 and a google.rpc.Status", what, code, contentType, body, err)
		return
	}
	if want := "response too large: larger than the limit of " + limit; codes.Code(st.Code) != codes.Internal || st.Message != want {
		t.Errorf("%s: status %v %q, want INTERNAL %q", what, codes.Code(st.Code), st.Message, want)
	}
}

// TestResponseTooLarge: a response over the limit (4 MiB by default) is
// a 500 INTERNAL "response too large" Status, with no part of the
// response, in JSON and binary, for messages and google.api.HttpBody; a
// response at the limit is whole. WithMaxResponseBytes moves the limit.
func TestResponseTooLarge(t *testing.T) {
	t.Parallel()
	gw := newFixture(t, "A", largeReplies(5<<20))
	for _, target := range []string{"/v1/probes/tags", "/v1/probes/blob", "/v1/download/x"} {
		for _, accept := range []string{"application/json", "application/proto"} {
			r := do(t, gw, "GET", target, "", "Accept", accept)
			wantTooLarge(t, target+" "+accept, r.code, r.header.Get("Content-Type"), r.body, "4 MiB")
		}
	}
	if r := do(t, gw, "GET", "/v1/probes/small", ""); r.code != 200 {
		t.Errorf("a small response: %d %.200s", r.code, r.body)
	}

	// At the limit, whole; a byte over, refused.
	whole := do(t, newFixture(t, "A", largeReplies(50<<10)), "GET", "/v1/probes/tags", "")
	if whole.code != 200 {
		t.Fatalf("no limit: %d %.200s", whole.code, whole.body)
	}
	n := len(whole.body)
	for _, tt := range []struct {
		limit int
		code  int
	}{{n, 200}, {n - 1, 500}, {0, 200}} {
		gw := newFixture(t, "A", largeReplies(50<<10), protorest.WithMaxResponseBytes(tt.limit))
		for _, accept := range []string{"application/json", "application/proto"} {
			r := do(t, gw, "GET", "/v1/probes/tags", "", "Accept", accept)
			if accept == "application/json" && r.code != tt.code || tt.code == 200 && r.code != 200 {
				t.Errorf("WithMaxResponseBytes(%d), a %d-byte response, %s: %d %.100s", tt.limit, n, accept, r.code, r.body)
			}
			if tt.code == 200 && accept == "application/json" && r.body != whole.body {
				t.Errorf("WithMaxResponseBytes(%d): the response differs", tt.limit)
			}
		}
	}
	r := do(t, newFixture(t, "A", largeReplies(50<<10), protorest.WithMaxResponseBytes(n-1)), "GET", "/v1/probes/tags", "")
	wantTooLarge(t, "a byte over", r.code, r.header.Get("Content-Type"), r.body, strconv.Itoa(n-1)+" bytes")
}

// TestRemoteResponseTooLarge: a backend's reply over the limit (5 MiB,
// received under a 64 MiB receive limit, as protorest serve sets it) is a
// 500 "response too large", whether it is transcoded from its wire bytes
// to JSON or passed through as binary.
func TestRemoteResponseTooLarge(t *testing.T) {
	t.Parallel()
	gw := remoteFixture(t, largeReplies(5<<20))
	for _, target := range []string{"/v1/probes/tags", "/v1/probes/blob", "/v1/download/x"} {
		for _, accept := range []string{"application/json", "application/proto"} {
			r := do(t, gw, "GET", target, "", "Accept", accept)
			wantTooLarge(t, "remote "+target+" "+accept, r.code, r.header.Get("Content-Type"), r.body, "4 MiB")
		}
	}
	if r := do(t, gw, "GET", "/v1/probes/small", ""); r.code != 200 || !strings.Contains(r.body, `"name":"small"`) {
		t.Errorf("a small remote response: %d %.200s", r.code, r.body)
	}
}

// oversizedWatch sends a small message, then one over the limit.
type oversizedWatch struct {
	confv1.UnimplementedProbesServer
}

func (oversizedWatch) Watch(_ *confv1.Probe, stream grpc.ServerStreamingServer[confv1.Probe]) error {
	if err := stream.Send(&confv1.Probe{Name: "small"}); err != nil {
		return err
	}
	return stream.Send(&confv1.Probe{Name: "big", Blob: make([]byte, 5<<20)})
}

// heedlessWatch sends a message over the limit between two small ones,
// paying no heed to the error of the one that fails.
type heedlessWatch struct {
	confv1.UnimplementedProbesServer
}

func (heedlessWatch) Watch(_ *confv1.Probe, stream grpc.ServerStreamingServer[confv1.Probe]) error {
	stream.Send(&confv1.Probe{Name: "small"})
	stream.Send(&confv1.Probe{Name: "big", Blob: make([]byte, 5<<20)})
	stream.Send(&confv1.Probe{Name: "after"})
	return nil
}

// TestStreamMessageTooLarge: a server stream's message over the limit
// ends the stream with the "response too large" error, in-band after the
// messages before it; so it does when the method pays no heed to the
// error and goes on sending and returns OK: the client never sees a
// stream with a message missing from it.
func TestStreamMessageTooLarge(t *testing.T) {
	t.Parallel()
	for name, impl := range map[string]confv1.ProbesServer{"returns the error": oversizedWatch{}, "heedless": heedlessWatch{}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			gw := protorest.NewGateway()
			confv1.RegisterProbesServer(gw, impl)
			r := do(t, gw, "GET", "/v1/watch/w", "")
			lines := strings.Split(strings.TrimSpace(r.body), "\n")
			if r.code != 200 || len(lines) != 2 || !strings.HasPrefix(lines[0], `{"result":{"name":"small"`) ||
				lines[1] != `{"error":{"code":13,"message":"response too large: larger than the limit of 4 MiB","details":[]}}` {
				t.Errorf("%d, %d bytes: %.300s", r.code, len(r.body), r.body)
			}
		})
	}
}

// dialRecvLimit connects to a backend at target, with the connection's
// own receive limit when opts set one (grpc-go's 4 MiB otherwise).
func dialRecvLimit(t *testing.T, target string, opts ...grpc.CallOption) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(opts...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// remoteProbes serves the conf.v1.Probes methods of a backend reached over
// conn on a loopback HTTP server.
func remoteProbes(t *testing.T, conn *grpc.ClientConn, gwOpts []protorest.Option, opts ...protorest.RemoteOption) string {
	t.Helper()
	gw := protorest.NewGateway(gwOpts...)
	opts = append([]protorest.RemoteOption{protorest.WithRemoteFiles(protoregistry.GlobalFiles, "conf.v1.Probes")}, opts...)
	if err := gw.RegisterRemote(context.Background(), conn, opts...); err != nil {
		t.Fatal(err)
	}
	return h2cServer(t, gw).URL
}

// TestRemoteResponseOverReceiveLimit: a backend's reply larger than the
// receive limit, which the gateway sets on each call from
// WithMaxResponseBytes, is refused as it arrives with the 500 "response
// too large" an in-process response over the limit gets, not grpc-go's
// RESOURCE_EXHAUSTED (a 429, "retry"), in JSON and binary, for a message
// and for google.api.HttpBody. The limit follows WithMaxResponseBytes both
// ways (the connection's, 4 MiB here, neither refuses a 5 MiB reply under
// 8 MiB nor lets one through under 1 MiB); WithMaxBackendMessageBytes
// sets another, and with 0 leaves the connection's own, as it was given.
func TestRemoteResponseOverReceiveLimit(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer(grpc.MaxSendMsgSize(64 << 20))
	replies := largeReplies(5 << 20)
	srv.RegisterService(serviceDesc(t, "conf.v1.Probes", replies), nil)
	addr := serveGRPC(t, srv)
	conn := dialRecvLimit(t, addr)                                  // grpc-go's 4 MiB
	wide := dialRecvLimit(t, addr, grpc.MaxCallRecvMsgSize(64<<20)) // as protorest serve dials

	targets := []string{"/v1/probes/tags", "/v1/probes/blob", "/v1/download/x"}
	accepts := []string{"application/json", "application/proto"}
	for _, tt := range []struct {
		name   string
		conn   *grpc.ClientConn
		gw     []protorest.Option
		remote []protorest.RemoteOption
		limit  string // of the 500; "" for 200
	}{
		{"default", conn, nil, nil, "4 MiB"},
		{"over the connection's limit", wide, nil, nil, "4 MiB"},
		{"WithMaxResponseBytes 8MiB", conn, []protorest.Option{protorest.WithMaxResponseBytes(8 << 20)}, nil, ""},
		{"WithMaxResponseBytes 1MiB", wide, []protorest.Option{protorest.WithMaxResponseBytes(1 << 20)}, nil, "1 MiB"},
		{"WithMaxBackendMessageBytes 2MiB", wide, []protorest.Option{protorest.WithMaxResponseBytes(8 << 20)},
			[]protorest.RemoteOption{protorest.WithMaxBackendMessageBytes(2 << 20)}, "2 MiB"},
		{"the connection's limit", conn, []protorest.Option{protorest.WithMaxResponseBytes(8 << 20)},
			[]protorest.RemoteOption{protorest.WithMaxBackendMessageBytes(0)}, "4 MiB"},
		{"the connection's wider limit", wide, []protorest.Option{protorest.WithMaxResponseBytes(8 << 20)},
			[]protorest.RemoteOption{protorest.WithMaxBackendMessageBytes(0)}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := remoteProbes(t, tt.conn, tt.gw, tt.remote...)
			inProcess := newFixture(t, "A", replies, tt.gw...)
			for _, target := range targets {
				for _, accept := range accepts {
					resp, body := send(t, "GET", url+target, "", "Accept", accept)
					what := target + " " + accept
					if tt.limit != "" {
						wantTooLarge(t, what, resp.StatusCode, resp.Header.Get("Content-Type"), body, tt.limit)
						continue
					}
					// Served whole, as in-process.
					want := do(t, inProcess, "GET", target, "", "Accept", accept)
					if resp.StatusCode != 200 || want.code != 200 || body != want.body {
						t.Errorf("%s: %d, %d bytes; in-process %d, %d bytes", what, resp.StatusCode, len(body), want.code, len(want.body))
					}
				}
			}
			if resp, body := send(t, "GET", url+"/v1/probes/small", ""); resp.StatusCode != 200 || !strings.Contains(body, `"name":"small"`) {
				t.Errorf("a small response: %d %.200s", resp.StatusCode, body)
			}
		})
	}
}

// sizedWatch streams one probe per size, its blob that many bytes.
type sizedWatch struct {
	confv1.UnimplementedProbesServer
	sizes []int
}

func (w sizedWatch) Watch(_ *confv1.Probe, stream grpc.ServerStreamingServer[confv1.Probe]) error {
	for i, n := range w.sizes {
		if err := stream.Send(&confv1.Probe{Name: strconv.Itoa(i), Blob: make([]byte, n)}); err != nil {
			return err
		}
	}
	return nil
}

// TestRemoteStreamMessageOverReceiveLimit: a server stream's message over
// the receive limit ends the stream as in-process, where it is over
// WithMaxResponseBytes: with the "response too large" error in-band
// after the messages before it (an error record in JSON, Grpc-Status
// trailers in binary), or as an ordinary 500 when it is the first.
func TestRemoteStreamMessageOverReceiveLimit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		sizes []int
	}{
		{"after a message", []int{10, 5 << 20}},
		{"first", []int{5 << 20}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			service := sizedWatch{sizes: tt.sizes}
			srv := grpc.NewServer(grpc.MaxSendMsgSize(64 << 20))
			confv1.RegisterProbesServer(srv, service)
			url := remoteProbes(t, dialRecvLimit(t, serveGRPC(t, srv)), nil)
			gw := protorest.NewGateway()
			confv1.RegisterProbesServer(gw, service)
			inProcess := h2cServer(t, gw).URL

			for _, accept := range []string{"application/json", "application/proto"} {
				resp, body := send(t, "GET", url+"/v1/watch/w", "", "Accept", accept, "TE", "trailers")
				want, wantBody := send(t, "GET", inProcess+"/v1/watch/w", "", "Accept", accept, "TE", "trailers")
				if resp.StatusCode != want.StatusCode || body != wantBody ||
					resp.Trailer.Get("Grpc-Status") != want.Trailer.Get("Grpc-Status") ||
					resp.Trailer.Get("Grpc-Message") != want.Trailer.Get("Grpc-Message") {
					t.Errorf("%s: %d %v %.300q; in-process %d %v %.300q", accept,
						resp.StatusCode, resp.Trailer, body, want.StatusCode, want.Trailer, wantBody)
				}
				if len(tt.sizes) == 1 {
					wantTooLarge(t, accept, resp.StatusCode, resp.Header.Get("Content-Type"), body, "4 MiB")
					continue
				}
				if got := resp.Trailer.Get("Grpc-Message"); resp.StatusCode != 200 || resp.Trailer.Get("Grpc-Status") != "13" ||
					got != "response too large: larger than the limit of 4 MiB" {
					t.Errorf("%s: %d, trailers %v", accept, resp.StatusCode, resp.Trailer)
				}
			}
			if _, body := send(t, "GET", url+"/v1/watch/w", ""); len(tt.sizes) > 1 && !strings.HasSuffix(body,
				`{"error":{"code":13,"message":"response too large: larger than the limit of 4 MiB","details":[]}}`+"\n") {
				t.Errorf("no trailers: %.300q", body)
			}
		})
	}
}

// exhaustedProbes answers RESOURCE_EXHAUSTED itself: for GetProbe "quota"
// at once; for "quoted" after its header, in grpc-go's words for a
// receive limit but another limit than the gateway's; and its Watch after
// a first message.
type exhaustedProbes struct {
	confv1.UnimplementedProbesServer
}

func (exhaustedProbes) GetProbe(ctx context.Context, p *confv1.Probe) (*confv1.Probe, error) {
	if p.GetName() == "quoted" {
		grpc.SendHeader(ctx, metadata.Pairs("k", "v"))
		return nil, status.Error(codes.ResourceExhausted, "grpc: received message larger than max (20 vs. 10)")
	}
	return nil, status.Error(codes.ResourceExhausted, "quota exceeded")
}

func (exhaustedProbes) CreateProbe(context.Context, *confv1.Probe) (*confv1.Probe, error) {
	return &confv1.Probe{Name: "created"}, nil
}

func (exhaustedProbes) Watch(_ *confv1.Probe, stream grpc.ServerStreamingServer[confv1.Probe]) error {
	if err := stream.Send(&confv1.Probe{Name: "first"}); err != nil {
		return err
	}
	return status.Error(codes.ResourceExhausted, "quota exceeded")
}

// TestRemoteBackendResourceExhausted: a backend that answers
// RESOURCE_EXHAUSTED itself still gets 429 (in-band in a stream), also
// when it is grpc-go's own refusal of a request of the gateway's over the
// backend's receive limit, in the very words, and with the limit, of the
// gateway's refusal of a response: that answer has no header.
func TestRemoteBackendResourceExhausted(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer() // receives up to grpc-go's 4 MiB, as the gateway does
	confv1.RegisterProbesServer(srv, exhaustedProbes{})
	url := remoteProbes(t, dialRecvLimit(t, serveGRPC(t, srv)), []protorest.Option{protorest.WithMaxRequestBodySize(8 << 20)})

	for _, tt := range []struct {
		name, method, target, body string
		message                    string
	}{
		{"quota", "GET", "/v1/probes/quota", "", "quota exceeded"},
		{"grpc-go's words after a header", "GET", "/v1/probes/quoted", "", "grpc: received message larger than max (20 vs. 10)"},
		{"the backend's receive limit", "POST", "/v1/probes", `{"name":"` + strings.Repeat("x", 5<<20) + `"}`,
			"grpc: received message larger than max (5242885 vs. 4194304)"},
	} {
		resp, body := send(t, tt.method, url+tt.target, tt.body)
		if want := `{"code":8,"message":"` + tt.message + `","details":[]}`; resp.StatusCode != 429 || body != want {
			t.Errorf("%s: %d %.200s, want 429 %s", tt.name, resp.StatusCode, body, want)
		}
	}
	if resp, body := send(t, "POST", url+"/v1/probes", `{"name":"small"}`); resp.StatusCode != 200 {
		t.Errorf("a small request: %d %.200s", resp.StatusCode, body)
	}
	resp, body := send(t, "GET", url+"/v1/watch/w", "")
	if want := `{"error":{"code":8,"message":"quota exceeded","details":[]}}` + "\n"; resp.StatusCode != 200 ||
		!strings.HasPrefix(body, `{"result":{"name":"first"`) || !strings.HasSuffix(body, want) {
		t.Errorf("a stream: %d %.300q", resp.StatusCode, body)
	}
}
