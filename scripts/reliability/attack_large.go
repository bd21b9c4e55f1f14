package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// largeReplies GETs n upstream replies of largeReply bytes at once, each
// with Grpc-Timeout 120S (serve on one core takes long over them), and
// again as soon as they are answered, for hold; it counts the statuses.
func largeReplies(ctx context.Context, e *attackEnv, n int, hold time.Duration) string {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	defer client.CloseIdleConnections()
	url := e.serve.url("/v1/bytes?value=" + strconv.Itoa(largeReply))
	statuses, waves := inWaves(ctx, hold, n, func() int {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return 0
		}
		req.Header.Set("Grpc-Timeout", "120S")
		res, err := client.Do(req)
		if err != nil {
			return 0
		}
		drain(res.Body)
		return res.StatusCode
	})
	if n == 1 {
		return fmt.Sprintf("%d GETs one after the other of a %d-byte reply: %s", waves, largeReply, statusText(statuses))
	}
	return fmt.Sprintf("%d waves of %d GETs of a %d-byte reply: %s", waves, n, largeReply, statusText(statuses))
}
