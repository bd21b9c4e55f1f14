package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
)

// largeReplies GETs n upstream replies of largeReply bytes at once, each
// with Grpc-Timeout 120S (serve on one core takes long over them), and
// counts the statuses.
func largeReplies(ctx context.Context, e *attackEnv, n int) string {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	defer client.CloseIdleConnections()
	url := e.serve.url("/v1/bytes?value=" + strconv.Itoa(largeReply))
	statuses := atOnce(n, func() int {
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
	return fmt.Sprintf("%d GETs of a %d-byte reply: %s", n, largeReply, statusText(statuses))
}
