package bind

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestDeriveFieldMask(t *testing.T) {
	t.Parallel()
	fx := fixture()
	tests := []struct {
		name    string
		body    string
		want    []string
		wantErr bool
	}{
		{name: "empty body", body: ``},
		{name: "whitespace body", body: " \n"},
		{name: "empty object", body: `{}`},
		{name: "not an object", body: `[{"name":"x"}]`},
		{name: "scalar body", body: `"x"`},
		{name: "proto and json names", body: `{"displayName":"x","last_name":"y","lname":null}`, want: []string{"display_name", "last_name"}},
		{name: "sorted", body: `{"name":"n","id":"1","color":"RED"}`, want: []string{"color", "id", "name"}},
		{name: "nested objects", body: `{"inner":{"s":"a","deeper":{"i":1,"deeper":{}}}}`, want: []string{"inner.deeper.deeper", "inner.deeper.i", "inner.s"}},
		{name: "empty nested object is a leaf", body: `{"inner":{}}`, want: []string{"inner"}},
		{name: "null nested is a leaf", body: `{"inner":null}`, want: []string{"inner"}},
		{name: "repeated and map stop", body: `{"items":[{"s":"x"}],"labels":{"k":"v"},"tags":["a"]}`, want: []string{"items", "labels", "tags"}},
		{name: "well-known types stop", body: `{"ts":"2017-01-15T01:30:15Z","wi32":5,"mask":"a","dur":"1s"}`, want: []string{"dur", "mask", "ts", "wi32"}},
		{name: "struct keys become paths", body: `{"attrs":{"a":{"b":1,"c":[1]},"d":"x","e":{}}}`, want: []string{"attrs.a.b", "attrs.a.c", "attrs.d", "attrs.e"}},
		{name: "empty struct", body: `{"attrs":{}}`, want: []string{"attrs"}},
		{name: "value object keys become paths", body: `{"val":{"k":1}}`, want: []string{"val.k"}},
		{name: "value scalar", body: `{"val":3}`, want: []string{"val"}},
		{name: "unknown keys skipped", body: `{"nope":{"x":[1,{"y":2}]},"inner":{"zz":1,"s":"a"},"name":"n"}`, want: []string{"inner.s", "name"}},
		{name: "scalar given an object", body: `{"name":{"x":1}}`, want: []string{"name"}},
		{name: "invalid json", body: `{"name":`, wantErr: true},
		{name: "invalid nested json", body: `{"inner":{"s":}}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := DeriveFieldMask(fx.probe, []byte(tt.body))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("DeriveFieldMask(%s) = %q, want an error", tt.body, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("DeriveFieldMask(%s): %v", tt.body, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("DeriveFieldMask(%s) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}

func TestMaskDeriverMatchesDeriveFieldMask(t *testing.T) {
	t.Parallel()
	fx := fixture()
	d := NewMaskDeriver(fx.inner)
	body := []byte(`{"s":"a","deeper":{"i":2}}`)
	a, errA := d.Derive(body)
	b, errB := DeriveFieldMask(fx.inner, body)
	if errA != nil || errB != nil || !slices.Equal(a, b) || strings.Join(a, ",") != "deeper.i,s" {
		t.Errorf("Derive = %q, %v; DeriveFieldMask = %q, %v", a, errA, b, errB)
	}
}

func TestMaskDeriverRejectUnknown(t *testing.T) {
	t.Parallel()
	fx := fixture()
	d := NewMaskDeriver(fx.inner)
	d.RejectUnknown = true
	for _, body := range []string{`{"s":"a","typo":1}`, `{"deeper":{"nope":true}}`} {
		_, err := d.Derive([]byte(body))
		var uk *UnknownKeyError
		if !errors.As(err, &uk) {
			t.Errorf("Derive(%s) err = %v, want an UnknownKeyError", body, err)
		}
	}
	if paths, err := d.Derive([]byte(`{"s":"a","deeper":{"i":2}}`)); err != nil || strings.Join(paths, ",") != "deeper.i,s" {
		t.Errorf("known keys: %q, %v", paths, err)
	}
}

// TestDeriveFieldMaskDepth checks the nesting limit against
// encoding/json's (10000 arrays and objects open at once), in an unknown
// key's value and in a Struct's keys, and that a lone surrogate in a key
// reads as encoding/json reads it.
func TestDeriveFieldMaskDepth(t *testing.T) {
	t.Parallel()
	d := NewMaskDeriver(fixture().probe)
	for _, n := range []int{9998, 9999, 10000} {
		for _, body := range []string{
			`{"nope":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`,
			`{"nope":` + strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) + `}`,
			`{"attrs":` + strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) + `}`,
			`{"attrs":` + strings.Repeat(`{"a":`, n) + "{}" + strings.Repeat("}", n) + `}`,
		} {
			_, err := d.Derive([]byte(body))
			if valid := json.Valid([]byte(body)); (err == nil) != valid {
				t.Errorf("Derive(%.20s…, %d levels) error = %v, but encoding/json valid = %v", body, n, err, valid)
			}
		}
	}
	paths, err := d.Derive([]byte(`{"attrs":{"\ud800":1,"\ud83d\ude00":2}}`))
	if err != nil || strings.Join(paths, ",") != "attrs.\uFFFD,attrs.😀" {
		t.Errorf("lone surrogate key: %q, %v", paths, err)
	}
}
