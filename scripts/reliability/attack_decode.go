package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// decodeValues is the values of each decoding bomb's list: 2 bytes a
// value, a body of 4 MB (under serve's 4 MiB body limit).
const decodeValues = 2_000_000

// decodingBomb POSTs n JSON objects at once to /v1/echo (a
// google.protobuf.Struct), each a list of decodeValues zeros: every
// value decodes to a google.protobuf.Value; again as soon as they are
// answered, for hold. It counts the statuses.
func decodingBomb(ctx context.Context, e *attackEnv, n int, hold time.Duration) string {
	body := `{"a":[` + strings.Repeat("0,", decodeValues-1) + `0]}`
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	defer client.CloseIdleConnections()
	statuses, waves := inWaves(ctx, hold, n, func() int {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.serve.url("/v1/echo"), strings.NewReader(body))
		if err != nil {
			return 0
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			return 0
		}
		drain(res.Body)
		return res.StatusCode
	})
	return fmt.Sprintf("%d waves of %d POSTs of %d bytes (%d values) each: %s", waves, n, len(body), decodeValues, statusText(statuses))
}
