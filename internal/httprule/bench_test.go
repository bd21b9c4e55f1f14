package httprule

import "testing"

func BenchmarkParse(b *testing.B) {
	const tmpl = "/v1/{parent=projects/*/locations/*}/instances/{instance.id}:restart"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(tmpl); err != nil {
			b.Fatal(err)
		}
	}
}
