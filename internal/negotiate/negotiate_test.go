package negotiate

import "testing"

var types = []string{"application/json", "application/proto", "application/protobuf", "application/x-protobuf", "text/csv"}

func TestAccept(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		accept    string
		preferred int
		want      int
	}{
		{"empty", "", 0, -1},
		{"exact", "application/proto", 0, 1},
		{"case-insensitive", "Application/X-Protobuf", 0, 3},
		{"any keeps the request's type", "*/*", 1, 1},
		{"any without preference", "*/*", -1, 0},
		{"type wildcard keeps preferred", "application/*", 2, 2},
		{"type wildcard picks first of its type", "text/*", 0, 4},
		{"q-values", "application/json;q=0.5, application/proto", 0, 1},
		{"q-values reversed", "application/json, application/proto;q=0.4", 1, 0},
		{"specific beats wildcard at equal q", "*/*, application/proto", 0, 1},
		{"q=0 never matches", "application/proto;q=0", 0, -1},
		{"unknown types skipped", "text/html, application/xhtml+xml, application/proto;q=0.9", 0, 1},
		{"nothing supported", "text/html, image/png", 0, -1},
		{"params and spaces", " application/json ; charset=utf-8 ; q=0.8 ", 1, 0},
		{"malformed q counts as 1", "application/proto;q=abc", 0, 1},
		{"three decimals", "application/json;q=0.001, application/proto;q=0.002", 0, 1},
		{"garbage", ",,;;/,*/", 0, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Accept(types, tt.accept, tt.preferred); got != tt.want {
				t.Errorf("Accept(%q, %d) = %d, want %d", tt.accept, tt.preferred, got, tt.want)
			}
		})
	}
}

func TestIndex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ct   string
		want int
	}{
		{"", -1},
		{"application/json", 0},
		{"application/json; charset=utf-8", 0},
		{"APPLICATION/PROTO", 1},
		{"application/x-www-form-urlencoded", -1},
		{"  text/csv  ;x=y", 4},
	}
	for _, tt := range tests {
		if got := Index(types, tt.ct); got != tt.want {
			t.Errorf("Index(%q) = %d, want %d", tt.ct, got, tt.want)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		Accept(types, "text/html, application/xhtml+xml, application/xml;q=0.9, */*;q=0.8", 0)
		Index(types, "application/json; charset=utf-8")
	})
	if allocs != 0 {
		t.Errorf("allocs = %v, want 0", allocs)
	}
}

func FuzzAccept(f *testing.F) {
	for _, s := range []string{"", "*/*", "application/json;q=0.5, application/proto", "text/*;q=0", ";;,,", "a/b;q=0.1234", "*/x", "application/*"} {
		f.Add(s, 0)
	}
	f.Fuzz(func(t *testing.T, accept string, preferred int) {
		if preferred < -1 || preferred >= len(types) {
			preferred = -1
		}
		got := Accept(types, accept, preferred)
		if got < -1 || got >= len(types) {
			t.Fatalf("Accept(%q) = %d, out of range", accept, got)
		}
		if again := Accept(types, accept, preferred); again != got {
			t.Fatalf("not deterministic: %d then %d", got, again)
		}
	})
}

func BenchmarkAccept(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Accept(types, "text/html, application/xhtml+xml, application/xml;q=0.9, */*;q=0.8", 0)
	}
}
