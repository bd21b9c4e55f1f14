package h1framing

import (
	"context"
	"net"
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest/internal/httperr"
)

type connKey struct{}

// ConnContext is http.Server.ConnContext: it gives Guard the Conn a
// request came on.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	var fc *Conn
	switch c := c.(type) {
	case *Conn:
		fc = c
	case tlsConn:
		fc = c.Conn
	default:
		return ctx
	}
	return context.WithValue(ctx, connKey{}, fc)
}

// Guard answers a request whose framing is faulty (see Fault) with 400, a
// google.rpc.Status body (INVALID_ARGUMENT) and Connection: close, without
// calling h, and so every request after it on its connection (net/http
// serves none: it closes the connection after the 400). Other requests go
// to h.
//
// It needs the server's connections to be Conns (NewListener,
// NewTLSListener) and its ConnContext to be ConnContext. On a connection
// that is not, it cannot see the fields net/http deleted; it closes the
// connection after any chunked HTTP/1.1 request instead, which RFC 9112
// §6.3 asks of a server that serves Content-Length with
// Transfer-Encoding, and cannot tell Transfer-Encoding on HTTP/1.0. HTTP/2
// requests go straight to h.
func Guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 1 || (r.Method == http.MethodOptions && r.RequestURI == "*") {
			h.ServeHTTP(w, r)
			return
		}
		c, _ := r.Context().Value(connKey{}).(*Conn)
		if c == nil {
			if len(r.TransferEncoding) > 0 {
				w.Header().Set("Connection", "close")
			}
			h.ServeHTTP(w, r)
			return
		}
		n := c.served.Add(1) - 1
		if f, at := c.scan.Fault(); at >= 0 && n >= at {
			w.Header().Set("Connection", "close")
			httperr.Write(w, httperr.New(http.StatusBadRequest, codes.InvalidArgument, f.String()), protojson.MarshalOptions{})
			return
		}
		h.ServeHTTP(w, r)
	})
}
