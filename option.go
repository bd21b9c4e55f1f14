package protorest

import "github.com/protorest/protorest/internal/config"

// An Option configures a Gateway. Each option is documented beside the
// feature it configures; a bad value is reported at the gateway's first
// use (RegisterService panics with it, RegisterRemote and HandlePath
// return it, requests get 500).
type Option interface {
	apply(*config.Config)
}

type optionFunc func(*config.Config)

func (f optionFunc) apply(c *config.Config) { f(c) }
