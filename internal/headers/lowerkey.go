package headers

import "strings"

// lowerKey returns key lower-cased, as metadata keys are: without an
// allocation for the headers most requests carry (commonLowerKeys).
func lowerKey(key string) string {
	if k, ok := commonLowerKeys[key]; ok {
		return k
	}
	return strings.ToLower(key)
}

// commonLowerKeys are the lower-case forms of the canonical header keys
// that browsers and gRPC, gRPC-Web and Connect clients send on most
// calls.
var commonLowerKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{
		"Accept", "Accept-Language", "Cache-Control", "Content-Type",
		"Cookie", "Origin", "Pragma", "Referer", "Te", "User-Agent",
		"Sec-Ch-Ua", "Sec-Ch-Ua-Mobile", "Sec-Ch-Ua-Platform",
		"Sec-Fetch-Dest", "Sec-Fetch-Mode", "Sec-Fetch-Site",
		"X-User-Agent", "X-Request-Id",
	} {
		m[k] = strings.ToLower(k)
	}
	return m
}()
