"""The demo's real browser clients: @connectrpc/connect-web and grpc-web
(npm), bundled with esbuild from e2e/browser/web, on a page of another
origin than the demo's, so that every call is cross-origin.

check_clients runs the bundle's calls (window.e2e in web/src/clients.ts)
and judges what each saw; check_readme loads the README's two snippets,
bundled as printed but for the port, and reads what they log. Used by
check.py when scripts/e2e-browser.sh gives it --clients.
"""

import json
import re
import time
import urllib.parse

from tally import check, info

PAGE_READY_S = 20
STREAM_COUNT = 7  # ticks 20 ms apart
BAD_REQUEST = [["name", "Name argument is required"]]
INVALID_ARGUMENT = 3  # grpc-web's codes are numbers

# Runs window.e2e[name](...args) on the page; its facts, or the exception.
CALL = """
const [name, args, done] = arguments;
window.e2e[name](...args).then(done, (e) => done({error: "threw " + e}));
"""


def wait_title(wd, want, limit_s):
    t0 = time.monotonic()
    title = wd.title()
    while title != want and time.monotonic() - t0 < limit_s:
        time.sleep(0.05)
        title = wd.title()
    return title


def demo_requests(perf_log, api):
    """The requests to the demo in a DevTools performance log: (method,
    path, resource type, content type) in the order they were sent."""
    got = []
    for entry in perf_log:
        m = json.loads(entry["message"]).get("message", {})
        if m.get("method") != "Network.requestWillBeSent":
            continue
        p = m["params"]
        url = p["request"]["url"]
        if url.startswith(api + "/"):
            headers = {k.lower(): v for k, v in p["request"].get("headers", {}).items()}
            got.append((p["request"]["method"], urllib.parse.urlsplit(url).path, p.get("type"),
                        headers.get("content-type")))
    return got


def severe(browser_log):
    return ["%s" % e.get("message") for e in browser_log if e.get("level") == "SEVERE"]


def check_clients(wd, api, page):
    """page (another origin) calls api with connect-web and grpc-web."""
    wd.log("browser")
    wd.log("performance")
    wd.get(page + "/index.html")
    check("clients: the bundle loads", wait_title(wd, "ready", PAGE_READY_S), "ready")
    origin = wd.js("return location.origin")
    check("clients: the page's origin is not the demo's", origin != api and origin == page, True)
    call = lambda name, *args: wd.js_async(CALL, name, list(args), timeout_s=20)  # noqa: E731

    for fmt, binary in (("json", False), ("binary", True)):
        n = "connect-web (%s)" % fmt
        check(n + ": unary MySvc.Echo", call("connectUnary", api, binary), {"msg": "echo: hello"})
        r = call("connectStream", api, binary, STREAM_COUNT)
        check(n + ": server stream MySvc.Watch, every tick in order",
              (r.get("seqs"), r.get("error")), (list(range(1, STREAM_COUNT + 1)), None))
        stamps = r.get("times") or []
        check(n + ": each tick's time a google.protobuf.Timestamp",
              (len(stamps), all(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", t) for t in stamps)),
              (STREAM_COUNT, True))
        check(n + ": error with details (code, message, a decoded google.rpc.BadRequest)",
              call("connectError", api, binary),
              {"code": "InvalidArgument", "message": "Name argument is required", "violations": BAD_REQUEST})
        check(n + ": a stream that fails before its first message",
              call("connectStreamError", api, binary),
              {"seqs": [], "code": "InvalidArgument", "message": "count 5000: want 1 to 1000"})

    for fmt in ("binary", "text"):
        n = "grpc-web (%s)" % fmt
        check(n + ": unary MySvc.Echo", call("grpcWebUnary", api, fmt), {"msg": "echo: hello"})
        r = call("grpcWebStream", api, fmt, STREAM_COUNT)
        check(n + ": server stream MySvc.Watch, every tick in order, then OK",
              (r.get("seqs"), r.get("status", {}).get("code"), r.get("error")),
              (list(range(1, STREAM_COUNT + 1)), 0, None))
        check(n + ": error with details (grpc-status-details-bin decoded to a google.rpc.BadRequest)",
              call("grpcWebError", api, fmt),
              {"code": INVALID_ARGUMENT, "message": "Name argument is required", "statusCode": INVALID_ARGUMENT,
               "violations": BAD_REQUEST})

    sent = demo_requests(wd.log("performance"), api)
    preflights = [(m, p) for m, p, t, _ in sent if t == "Preflight" or m == "OPTIONS"]
    calls = [(m, p, ct) for m, p, t, ct in sent if not (t == "Preflight" or m == "OPTIONS")]
    info("%d calls to the demo, %d preflights: %s" % (len(calls), len(preflights), sorted(set(preflights))))
    check("clients: each method's calls were preflighted (cross-origin, CORS)",
          sorted({p for _, p in preflights}),
          sorted({p for _, p, _ in calls}))
    # Each protocol and encoding went on the wire: Connect unary and
    # streaming, JSON and binary; gRPC-Web binary and text.
    check("clients: the calls' content types", sorted({ct for _, _, ct in calls}),
          ["application/connect+json", "application/connect+proto", "application/grpc-web+proto",
           "application/grpc-web-text", "application/json", "application/proto"])
    # The only console errors: Chromium's line for each Connect unary error
    # (GetBook's 400, in JSON and binary); grpc-web's errors are HTTP 200.
    errors = [e for e in severe(wd.log("browser"))
              if not re.search(re.escape(api) + r"/bookstore\.v1\.BookService/GetBook - Failed to load resource: "
                               r"the server responded with a status of 400", e)]
    check("clients: no other console error", errors, [])

    # From an origin the demo does not allow (the same page under
    # localhost): the preflight fails, and so does the call.
    other = page.replace("127.0.0.1", "localhost")
    wd.get(other + "/index.html")
    check("clients (origin not allowed): the bundle loads", wait_title(wd, "ready", PAGE_READY_S), "ready")
    r = call("connectUnary", api, False)
    # A fetch that CORS blocks is a TypeError to the page, which
    # connect-web calls Unknown, and grpc-web a status 0 (UNKNOWN).
    check("clients (origin not allowed): connect-web's call is blocked", r,
          {"error": "ConnectError Unknown: Failed to fetch"})
    r = call("grpcWebUnary", api, "text")
    check("clients (origin not allowed): grpc-web's call is blocked", r,
          {"error": "RpcError 2: Http response at 400 or 500 level, http status code: 0"})
    wd.log("browser")


def check_readme(wd, page):
    """readme.html runs the README's snippets, which log what they got."""
    wd.log("browser")
    wd.get(page + "/readme.html")
    t0 = time.monotonic()
    logged = []
    while time.monotonic() - t0 < PAGE_READY_S:
        for e in wd.log("browser"):
            m = re.match(r'^\S+/(readme-\w+)\.js \d+:\d+ (.*)$', e.get("message", ""))
            logged.append((m.group(1), m.group(2)) if m else ("?", "%s: %s" % (e.get("level"), e.get("message"))))
        if len([1 for _, text in logged if text == '"done"']) >= 2:
            break
        time.sleep(0.1)
    connect = [text for src, text in logged if src == "readme-connect"]
    grpcweb = [text for src, text in logged if src == "readme-grpcweb"]
    check("README: the connect-web snippet logs HELLO and ticks 1, 2, 3", connect, ['"HELLO"', "1", "2", "3", '"done"'])
    check("README: the grpc-web snippet logs HELLO", grpcweb, ['"HELLO"', '"done"'])
    others = [t for src, t in logged if src not in ("readme-connect", "readme-grpcweb")]
    check("README: no other console line", others, [])
