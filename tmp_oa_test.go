package protorest_test

import (
	"os"
	"testing"

)

func TestTmpOpenAPI(t *testing.T) {
	gw := newFixture(t, "A", &recorder{})
	os.WriteFile("/tmp/confA.json", gw.OpenAPI(), 0o644)
}
