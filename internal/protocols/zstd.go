package protocols

import (
	"io"

	"connectrpc.com/connect"
	"github.com/klauspost/compress/zstd"

	"github.com/protorest/protorest/internal/compress"
)

// withZstd adds zstd to connect-go's compressions (gzip is its own):
// messages decoded as REST's request bodies are (compress.NewZstdDecoder),
// encoded at the default level with one goroutine.
func withZstd() connect.HandlerOption {
	return connect.WithCompression("zstd",
		func() connect.Decompressor {
			d, err := compress.NewZstdDecoder()
			if err != nil {
				return failedDecompressor{err}
			}
			return zstdDecompressor{d}
		},
		func() connect.Compressor {
			e, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
			if err != nil {
				return failedCompressor{err}
			}
			return e
		})
}

// zstdDecompressor is a zstd.Decoder as connect-go pools it: Close keeps
// it for the next Reset (the decoder's own Close frees it for good).
type zstdDecompressor struct{ *zstd.Decoder }

func (d zstdDecompressor) Close() error { return nil }

// failedDecompressor and failedCompressor fail every use with the error
// of a coder that could not be made.
type failedDecompressor struct{ err error }

func (f failedDecompressor) Read([]byte) (int, error) { return 0, f.err }
func (f failedDecompressor) Close() error             { return nil }
func (f failedDecompressor) Reset(io.Reader) error    { return f.err }

type failedCompressor struct{ err error }

func (f failedCompressor) Write([]byte) (int, error) { return 0, f.err }
func (f failedCompressor) Close() error              { return f.err }
func (f failedCompressor) Reset(io.Writer)           {}
