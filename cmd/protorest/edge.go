package main

import (
	"fmt"
	"strings"

	"github.com/protorest/protorest"
)

// corsOption is WithCORS for origins, with a bad origin an error rather
// than WithCORS's panic.
func corsOption(origins []string, credentials bool) (opt protorest.Option, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("--cors-origin: %s", strings.TrimPrefix(fmt.Sprint(v), "protorest: WithCORS: "))
		}
	}()
	return protorest.WithCORS(protorest.CORS{AllowedOrigins: origins, AllowCredentials: credentials}), nil
}

// trustedProxiesOption is WithTrustedProxies, with a bad prefix an error
// rather than its panic.
func trustedProxiesOption(cidrs []string) (opt protorest.Option, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("--trusted-proxy: %s", strings.TrimPrefix(fmt.Sprint(v), "protorest: "))
		}
	}()
	return protorest.WithTrustedProxies(cidrs...), nil
}
