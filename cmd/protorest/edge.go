package main

import (
	"errors"
	"net/http"
	"strings"

	"github.com/protorest/protorest"
)

// corsOption is WithCORS for origins, with a bad origin an error now
// rather than at the gateway's first use.
func corsOption(origins []string, credentials bool) (protorest.Option, error) {
	o := protorest.WithCORS(protorest.CORS{AllowedOrigins: origins, AllowCredentials: credentials})
	return o, optionError(o, "--cors-origin: ", "protorest: WithCORS: ")
}

// trustedProxiesOption is WithTrustedProxies, with a bad prefix an error
// now rather than at the gateway's first use.
func trustedProxiesOption(cidrs []string) (protorest.Option, error) {
	o := protorest.WithTrustedProxies(cidrs...)
	return o, optionError(o, "--trusted-proxy: ", "protorest: ")
}

// optionError is the mistake in o that a gateway reports at its first
// use (HandlePath returns it), as flag, then the message without
// prefix; nil if there is none.
func optionError(o protorest.Option, flag, prefix string) error {
	err := protorest.NewGateway(o).HandlePath(http.MethodGet, "/", func(http.ResponseWriter, *http.Request) {})
	if err == nil {
		return nil
	}
	return errors.New(flag + strings.TrimPrefix(err.Error(), prefix))
}
