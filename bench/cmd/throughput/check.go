package main

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/protorest/protorest/bench"
)

// checkAnswers requires every server to answer every route it serves
// with status 200, the media type and the JSON values of the first that
// serves it (a stream's answer line by line): so that no contender is
// fast because it answers less, as bench's TestThroughputEquivalence
// checks their handlers, here on the live processes.
func checkAnswers(servers []*server, routes []bench.Route) error {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer client.CloseIdleConnections()
	for _, route := range routes {
		var refName, refType string
		var ref []any
		for _, s := range servers {
			if _, skip := bench.SkippedRoutes[s.name][route.Name]; skip {
				continue
			}
			mediaType, values, err := answer(client, s.url, route)
			if err != nil {
				return fmt.Errorf("%s on %s: %w", s.name, route.Name, err)
			}
			if ref == nil {
				refName, refType, ref = s.name, mediaType, values
				continue
			}
			if mediaType != refType || !reflect.DeepEqual(values, ref) {
				return fmt.Errorf("%s answers %s otherwise than %s: %s %v\n%s %v", s.name, route.Name, refName, mediaType, values, refType, ref)
			}
		}
	}
	return nil
}

// answer is a server's answer to route: its media type and JSON values.
func answer(client *http.Client, url string, route bench.Route) (string, []any, error) {
	var body io.Reader
	if route.Op.HTTP.Body != "" {
		body = strings.NewReader(route.Op.HTTP.Body)
	}
	req, err := http.NewRequest(route.Op.HTTP.Method, url+route.Op.HTTP.Target, body)
	if err != nil {
		return "", nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := client.Do(req)
	if err != nil {
		return "", nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return "", nil, err
	}
	if res.StatusCode != http.StatusOK {
		return "", nil, fmt.Errorf("status %d: %s", res.StatusCode, b)
	}
	mediaType, _, err := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if err != nil {
		return "", nil, err
	}
	var values []any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			return "", nil, err
		}
		values = append(values, v)
	}
	if len(values) == 0 {
		return "", nil, fmt.Errorf("no JSON in %q", b)
	}
	return mediaType, values, nil
}
