package bench

import (
	"mime"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// TestEquivalence sends every operation to every peer and requires the
// same answer from all: status 200 and the same media type; a JSON body
// that unmarshals (strictly) to a message proto.Equal to the gRPC client's
// reply to the same call; the same set of JSON keys, so that no peer omits
// a field the others write; and, stricter still, the same JSON values
// (numbers compared as written), so that every field is written in the
// same form. So no peer is fast because it does less.
func TestEquivalence(t *testing.T) {
	lib := NewLibrary()
	peers, err := NewHTTPPeers(t.Context(), lib)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ClosePeers(peers) })
	direct, err := NewGRPCDirect(lib)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { direct.Close() })

	for _, op := range Ops {
		t.Run(op.Name, func(t *testing.T) {
			want, err := op.GRPC(t.Context(), direct.Client)
			if err != nil {
				t.Fatalf("%s: %v", direct.Name(), err)
			}
			var ref *answer
			for _, p := range peers {
				got, err := ask(t, p, op)
				if err != nil {
					t.Errorf("%s: %v", p.Name(), err)
					continue
				}
				if !proto.Equal(got.msg, want) {
					t.Errorf("%s: body %s\nis not the gRPC reply %v", p.Name(), got.body, want)
				}
				if ref == nil {
					ref = got
					continue
				}
				if got.mediaType != ref.mediaType {
					t.Errorf("%s: Content-Type %q, %s: %q", p.Name(), got.mediaType, ref.peer, ref.mediaType)
				}
				if !slices.Equal(got.keys, ref.keys) {
					t.Errorf("%s: JSON keys %q\n%s: %q", p.Name(), got.keys, ref.peer, ref.keys)
				} else if !reflect.DeepEqual(got.value, ref.value) {
					t.Errorf("%s: JSON %s\n%s: %s", p.Name(), got.body, ref.peer, ref.body)
				}
			}
		})
	}
}

// An answer is a peer's successful response to an operation, parsed.
type answer struct {
	peer      string
	mediaType string
	body      []byte
	msg       proto.Message
	value     any      // body decoded by encoding/json, numbers as json.Number
	keys      []string // jsonKeys of value
}

// ask sends op to p and parses the answer, which must be a 200 with a
// JSON body that protojson reads with no unknown field.
func ask(t *testing.T, p HTTPPeer, op Op) (*answer, error) {
	t.Helper()
	res, err := p.Do(t.Context(), op.HTTP)
	if err != nil {
		return nil, err
	}
	if res.Status != http.StatusOK {
		t.Fatalf("%s: status %d, want 200: %s", p.Name(), res.Status, res.Body)
	}
	a := &answer{peer: p.Name(), body: res.Body, msg: op.NewResponse()}
	if a.mediaType, _, err = mime.ParseMediaType(res.ContentType); err != nil {
		t.Errorf("%s: Content-Type %q: %v", p.Name(), res.ContentType, err)
	}
	if err := protojson.Unmarshal(res.Body, a.msg); err != nil {
		t.Fatalf("%s: %v in %s", p.Name(), err, res.Body)
	}
	if a.value, err = decodeJSON(res.Body); err != nil {
		t.Fatalf("%s: %v in %s", p.Name(), err, res.Body)
	}
	a.keys = jsonKeys(a.value)
	return a, nil
}

// jsonKeys returns the paths of every object key in a JSON value decoded
// by encoding/json, sorted and without repeats: "a", "a.b", and
// "list[].c" for the keys of objects in arrays. Map entries count as keys
// too.
func jsonKeys(v any) []string {
	var keys []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				path := prefix + k
				keys = append(keys, path)
				walk(path+".", e)
			}
		case []any:
			for _, e := range v {
				walk(prefix[:max(len(prefix)-1, 0)]+"[].", e)
			}
		}
	}
	walk("", v)
	slices.Sort(keys)
	return slices.Compact(keys)
}
