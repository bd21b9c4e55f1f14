package bind

import (
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/text"
)

// maxQuoted is how many bytes of client input an error message quotes.
const maxQuoted = 64

// quote returns s as a Go string literal for an error message, keeping at
// most maxQuoted bytes (cut on a rune boundary and marked with "…"), so a
// megabyte-long parameter cannot be echoed back. Control characters and
// invalid UTF-8 are escaped.
func quote(s string) string {
	return strconv.Quote(text.Truncate(s, maxQuoted))
}

// invalidArgument returns a status error with code InvalidArgument.
func invalidArgument(msg string) error {
	return status.Error(codes.InvalidArgument, msg)
}

// invalidValue reports a value that the converter for a field rejected.
// what is "field" or "query parameter"; name is the name the client
// used; problem says what was expected.
func invalidValue(what, name, value, problem string) error {
	return invalidArgument("invalid value " + quote(value) + " for " + what + " " + quote(name) + ": " + problem)
}
