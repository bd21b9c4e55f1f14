package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
)

// largeReplies GETs n upstream replies of largeReply bytes at once, each
// with Grpc-Timeout 120S (serve on one core takes long over them), and
// counts the statuses.
func largeReplies(ctx context.Context, e *attackEnv, n int) string {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	defer client.CloseIdleConnections()
	url := e.serve.url("/v1/bytes?value=" + strconv.Itoa(largeReply))
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code := 0
			if req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil); err == nil {
				req.Header.Set("Grpc-Timeout", "120S")
				if res, err := client.Do(req); err == nil {
					drain(res.Body)
					code = res.StatusCode
				}
			}
			mu.Lock()
			statuses[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return fmt.Sprintf("%d GETs of a %d-byte reply: %s", n, largeReply, statusText(statuses))
}
