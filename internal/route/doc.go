// Package route matches HTTP requests against google.api.http path
// templates.
//
// A [Tree] holds [Entry] values, each an HTTP method, a parsed
// [httprule.Template] and a caller's value. [Tree.Match] finds the most
// specific entry for a method and an escaped request path without
// allocating and without scanning the routes: the templates form a trie
// keyed by segment, walked once per request.
//
// # Templates and shapes
//
// The shape of a template is its sequence of segments with variable names
// and boundaries erased: /v3/{name=*}, /v3/{id} and /v3/* have the shape
// /v3/*, and /v1/{name=shelves/*} and /v1/shelves/{id} both have the shape
// /v1/shelves/*. Each shape is one node of the trie. Two entries with the
// same method, the same verb and the same shape conflict, and [Tree.Add]
// rejects the second with a [*ConflictError]. Method "*" (the
// google.api.http custom kind "*") does not conflict with an exact method
// on the same shape; the exact method wins for requests that use it.
//
// # Request paths
//
// The request path is the escaped path (r.URL.EscapedPath()), without the
// query. It is split on "/" into segments; a percent-encoded slash (%2F)
// is data and never splits a segment. All trailing empty segments are
// dropped, so /v1/probes/, /v1/probes// and /v1/probes are the same
// request, unless Tree.StrictTrailingSlash is set. Empty interior
// segments are kept: /c//x has the segments "c", "" and "x". The paths
// "", "/" and (unless StrictTrailingSlash) "//" have zero segments and
// match the root template "/". A non-empty path that does not begin with
// "/" matches nothing.
//
// # Encoded slashes
//
// With Tree.EncodedSlashFallback, a path that matches no entry for the
// request's method, as above, and that holds %2F or %2f, is matched once
// more with those escapes decoded to "/" ([DecodeSlashes]): as
// grpc-gateway's default (Legacy) unescaping routes it, on the decoded
// path. The clients grpc-gateway's OpenAPI generators make escape the
// slashes of path parameters (shelves%2F1 for {parent=shelves/*}); they
// reach their routes this way. Only the slashes are decoded: an encoded
// colon (%3A) is still data, never a verb, and the variables' values are
// decoded as usual afterwards, so {name=shelves/*/books/*} gets
// shelves/1/books/2 from shelves%2F1%2Fbooks%2F2. The fallback never
// changes the route of a path that matches as written: it is tried only
// when that finds nothing for the method. [Tree.Allowed] counts the
// fallback's methods too, so that a 405 and its Allow header agree with
// Match.
//
// # Verbs
//
// The tree remembers the verbs its templates use. When the last segment
// ends with ":" followed by a registered verb, that suffix is the
// request's verb and is removed from the segment; if several registered
// verbs end the segment (verbs may contain ":"), the longest wins. Any
// other colon is data: an unregistered suffix such as :zzz, a colon in an
// earlier segment, and an encoded colon (%3A) never start a verb. An entry
// matches only requests whose verb equals its template's verb, so with
// :archive registered, GET /v1/probes/abc:archive does not match
// /v1/probes/{name}. The verb is found after trailing slashes are
// dropped.
//
// # Precedence
//
// The most specific template wins, whatever the registration order. The
// trie is walked depth first; at each segment the candidates are tried in
// the order literal, then "*", then "**", and a failure deeper down,
// including a template that matches the path but has no entry for the
// request's method and verb, backtracks to the next less specific
// candidate. A literal matches the raw, still-encoded segment byte for
// byte, case-sensitively; "*" matches any one segment, the empty one too.
// A "**" at the end of a template matches zero or more segments; a "**"
// followed by segments (literals, or "*" as grpc-gateway serves) matches
// one or more, and the fewest that let those segments match the rest of
// the path are tried first. At a template's
// node, an entry for the exact request method is preferred to one for
// method "*".
//
// # Variables
//
// [Match.RawVar] returns the request text a template variable covers,
// still percent-encoded: the segments it spans joined by "/". Decoding is
// left to the caller, who knows the variable's kind: [UnescapeSegment] for
// a variable of one segment, [UnescapeMulti] for one that spans several
// segments or contains "**".
//
// A [Table] holds a server's entries while it serves: it swaps them all or
// nothing, and hands out trees that never change (copy-on-write), so that
// requests match without a lock.
package route
