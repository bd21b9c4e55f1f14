package protorest_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

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
