package config

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestDefault: a gateway without options has the documented defaults.
func TestDefault(t *testing.T) {
	c := Default()
	for _, tt := range []struct {
		name      string
		got, want int64
	}{
		{"request body", c.Limits.MaxBody, 4 << 20},
		{"URL", int64(c.Limits.MaxURLBytes), 16 << 10},
		{"headers", int64(c.Limits.MaxHeaders), 100},
		{"query parameters", int64(c.Limits.MaxQueryParams), 1000},
		{"JSON depth", int64(c.Limits.MaxJSONDepth), 100},
		{"metadata", int64(c.Headers.MaxMetadataBytes), 8 << 10},
		{"response", int64(c.Response.MaxBytes), 4 << 20},
		{"read idle", int64(c.Limits.ReadIdleTimeout), int64(DefaultReadIdleTimeout)},
		{"stream idle", int64(c.Limits.StreamIdleTimeout), int64(DefaultStreamIdle)},
		{"max timeout", int64(c.Headers.MaxTimeout), int64(DefaultMaxTimeout)},
		{"write timeout", int64(c.Response.WriteTimeout), int64(DefaultResponseWriteTimeout)},
		{"buffered wait", int64(c.Response.BufferedWait), int64(DefaultBufferedResponseWait)},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, tt.got, tt.want)
		}
	}
	if !c.Codecs.Marshal.EmitUnpopulated || !c.Codecs.Unmarshal.DiscardUnknown || !c.Binding.DeriveMask || !c.Routing.SlashFallback {
		t.Errorf("JSON, field mask or routing defaults: %+v %+v %+v", c.Codecs, c.Binding, c.Routing)
	}
	if c.Registration.Files == nil || c.Codecs.Types == nil || c.Headers.OutgoingHeader == nil || c.Headers.OutgoingTrailer == nil {
		t.Error("a default that must not be nil is nil")
	}
	if c.CORS != nil || c.Compression != nil || len(c.Errs) != 0 {
		t.Error("an edge feature is on by default")
	}
}

// TestDefaultMaxBuffered: 128 MiB for responses and for request
// decoding, or a quarter of a smaller memory limit.
func TestDefaultMaxBuffered(t *testing.T) {
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		if n := DefaultMaxBuffered(); n != DefaultMaxBufferedResponses {
			t.Errorf("without a memory limit: %d", n)
		}
	}
	old := debug.SetMemoryLimit(400 << 20)
	defer debug.SetMemoryLimit(old)
	if n := DefaultMaxBuffered(); n != 100<<20 {
		t.Errorf("under a 400 MiB limit: %d", n)
	}
	if n := Default().Limits.MaxDecoding; n != 100<<20 {
		t.Errorf("the decoding budget under a 400 MiB limit: %d", n)
	}
}
