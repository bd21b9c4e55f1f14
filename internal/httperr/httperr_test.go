package httperr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"
)

// TestFromCode is google/rpc/code.proto's table, which grpc-gateway's
// runtime.HTTPStatusFromCode follows.
func TestFromCode(t *testing.T) {
	t.Parallel()
	want := map[codes.Code]int{
		codes.OK:                 200,
		codes.Canceled:           499,
		codes.Unknown:            500,
		codes.InvalidArgument:    400,
		codes.DeadlineExceeded:   504,
		codes.NotFound:           404,
		codes.AlreadyExists:      409,
		codes.PermissionDenied:   403,
		codes.ResourceExhausted:  429,
		codes.FailedPrecondition: 400,
		codes.Aborted:            409,
		codes.OutOfRange:         400,
		codes.Unimplemented:      501,
		codes.Internal:           500,
		codes.Unavailable:        503,
		codes.DataLoss:           500,
		codes.Unauthenticated:    401,
		codes.Code(17):           500,
		codes.Code(1 << 20):      500,
	}
	for c, w := range want {
		if got := FromCode(c); got != w {
			t.Errorf("FromCode(%v) = %d, want %d", c, got, w)
		}
	}
}

func TestStatusAndToStatus(t *testing.T) {
	t.Parallel()
	own := TooLarge(4 << 20)
	tests := []struct {
		name     string
		err      error
		http     int
		code     codes.Code
		msg      string
		ownState bool
	}{
		{"gateway's own", own, 413, codes.ResourceExhausted, "request body larger than the limit of 4 MiB", true},
		// A wrapped status keeps its code and takes the whole message, as
		// status.FromError gives it.
		{"own, wrapped", fmt.Errorf("reading: %w", own), 413, codes.ResourceExhausted, "reading: request body larger than the limit of 4 MiB", true},
		{"not found", NotFound(), 404, codes.NotFound, "Not Found", true},
		{"method not allowed", MethodNotAllowed(), 405, codes.Unimplemented, "Method Not Allowed", true},
		{"own message", TooLargeMessage("message 3 of the stream: too large"), 413, codes.ResourceExhausted, "message 3 of the stream: too large", true},
		{"a method's status", status.Error(codes.NotFound, "no book"), 404, codes.NotFound, "no book", false},
		{"a status, wrapped", fmt.Errorf("call: %w", status.Error(codes.Unauthenticated, "who")), 401, codes.Unauthenticated, "call: rpc error: code = Unauthenticated desc = who", false},
		{"canceled", context.Canceled, 499, codes.Canceled, "context canceled", false},
		{"deadline, wrapped", fmt.Errorf("x: %w", context.DeadlineExceeded), 504, codes.DeadlineExceeded, "x: context deadline exceeded", false},
		{"plain error", errors.New("boom"), 500, codes.Unknown, "boom", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Status(tt.err); got != tt.http {
				t.Errorf("Status = %d, want %d", got, tt.http)
			}
			st := ToStatus(tt.err)
			if st.Code() != tt.code || st.Message() != tt.msg {
				t.Errorf("ToStatus = %v %q, want %v %q", st.Code(), st.Message(), tt.code, tt.msg)
			}
			if got := HasOwnStatus(tt.err); got != tt.ownState {
				t.Errorf("HasOwnStatus = %v, want %v", got, tt.ownState)
			}
		})
	}
}

func TestFormatBytes(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{
		0: "0 bytes", 100: "100 bytes", 1023: "1023 bytes", 1024: "1 KiB", 1536: "1536 bytes",
		16 << 10: "16 KiB", 4 << 20: "4 MiB", 4<<20 + 1024: "4097 KiB", 1 << 30: "1024 MiB",
	} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestAppendJSON: the body is protojson's form of google.rpc.Status,
// compact, with "details" always present; a detail whose type cannot be
// resolved keeps its type URL and base64 value, and the others are still
// written in full.
func TestAppendJSON(t *testing.T) {
	t.Parallel()
	bad := &errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "name", Description: "required \"here\""}}}
	known, err := anypb.New(bad)
	if err != nil {
		t.Fatal(err)
	}
	unknown := &anypb.Any{TypeUrl: "type.googleapis.com/no.such.Type", Value: []byte{1, 2, 0xff}}
	st, err := status.New(codes.InvalidArgument, "bad <input> é").WithDetails(bad)
	if err != nil {
		t.Fatal(err)
	}
	p := st.Proto()
	p.Details = append(p.Details, unknown, known)
	st = status.FromProto(p)

	got := AppendJSON([]byte("prefix"), st, protojson.MarshalOptions{Resolver: protoregistry.GlobalTypes})
	const prefix = "prefix"
	if string(got[:len(prefix)]) != prefix {
		t.Fatalf("the prefix is lost: %q", got)
	}
	body := got[len(prefix):]
	var v struct {
		Code    int               `json:"code"`
		Message string            `json:"message"`
		Details []json.RawMessage `json:"details"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, body)
	}
	if v.Code != 3 || v.Message != "bad <input> é" || len(v.Details) != 3 {
		t.Fatalf("body %s", body)
	}
	wantKnown, err := protojson.Marshal(known)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 2} {
		if !jsonEqual(t, v.Details[i], wantKnown) {
			t.Errorf("detail %d = %s, want %s", i, v.Details[i], wantKnown)
		}
	}
	if want := `{"@type":"type.googleapis.com/no.such.Type","value":"AQL/"}`; string(v.Details[1]) != want {
		t.Errorf("unresolvable detail = %s, want %s", v.Details[1], want)
	}

	if got, want := string(AppendJSON(nil, status.New(codes.OK, ""), protojson.MarshalOptions{})), `{"code":0,"message":"","details":[]}`; got != want {
		t.Errorf("empty status = %s, want %s", got, want)
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}

func TestWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		err      error
		trailer  bool
		code     int
		header   map[string]string // "" is absent
		bodyWant string
	}{
		{"own status", TooLarge(1024), false, 413, map[string]string{
			"Content-Type": "application/json", "Content-Length": "79", "WWW-Authenticate": "",
		}, `{"code":8,"message":"request body larger than the limit of 1 KiB","details":[]}`},
		{"401 says how to authenticate", status.Error(codes.Unauthenticated, "token expired"), false, 401, map[string]string{
			"WWW-Authenticate": "token expired",
		}, `{"code":16,"message":"token expired","details":[]}`},
		{"declared trailers: no length", status.Error(codes.Internal, "x"), true, 500, map[string]string{
			"Content-Length": "", "Content-Type": "application/json",
		}, `{"code":13,"message":"x","details":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := httptest.NewRecorder()
			if tt.trailer {
				w.Header().Set("Trailer", "Grpc-Status")
				w.Header().Set("Content-Length", "999")
			}
			Write(w, tt.err, protojson.MarshalOptions{})
			if w.Code != tt.code {
				t.Errorf("status %d, want %d", w.Code, tt.code)
			}
			for k, v := range tt.header {
				if got := w.Header().Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if got := w.Body.String(); got != tt.bodyWant {
				t.Errorf("body %s, want %s", got, tt.bodyWant)
			}
			if cl := w.Header().Get("Content-Length"); cl != "" && cl != fmt.Sprint(w.Body.Len()) {
				t.Errorf("Content-Length %s for a body of %d bytes", cl, w.Body.Len())
			}
		})
	}
}
