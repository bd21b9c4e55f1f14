"""Headless Chromium consumes the demo's streams and opens its docs page,
driven over W3C WebDriver.

Used by scripts/e2e-browser.sh, which installs Debian's chromium and
chromium-driver (the same version, from one source package), starts the
demo and chromedriver, and runs:

    python3 e2e/browser/check.py --webdriver http://127.0.0.1:PORT \
        --chromium /usr/bin/chromium --user-data-dir DIR \
        --screenshot docs-page.png [--clients http://127.0.0.1:PORT2] \
        http://127.0.0.1:PORT

The WebDriver protocol is plain HTTP and JSON, so this needs nothing but
the standard library: no PyPI, no npm, no browser download. (--clients
names the origin serving the npm clients' bundle, which the script builds:
clients.py.)

Prints an "ok   NAME" or "FAIL NAME" line per check, and "     (...)"
lines with facts; exits 1 when a check failed, 2 when the browser could
not be driven at all.
"""

import argparse
import base64
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tally  # noqa: E402
from tally import check, fail, info, ok  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clients  # noqa: E402

TITLE_WAIT_S = 30  # the page needs about half a second
WANT_TITLE = "done: 1,2,3,4,5"


class WebDriverError(Exception):
    pass


class WebDriver:
    """The few W3C WebDriver commands the checks use."""

    def __init__(self, url):
        self.url = url.rstrip("/")
        # No proxy, whatever the environment says: everything is local.
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        self.session = None

    def call(self, method, path, body=None, timeout=60):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json; charset=utf-8")
        try:
            with self.opener.open(req, timeout=timeout) as resp:
                payload = resp.read()
        except urllib.error.HTTPError as e:
            payload = e.read()
            try:
                v = json.loads(payload)["value"]
                msg = "%s: %s" % (v.get("error"), v.get("message", "").splitlines()[0])
            except (ValueError, KeyError, TypeError, AttributeError, IndexError):
                msg = payload[:300].decode("utf-8", "replace")
            raise WebDriverError("%s %s: HTTP %d: %s" % (method, path, e.code, msg)) from None
        except OSError as e:
            raise WebDriverError("%s %s: %s" % (method, path, e)) from None
        return json.loads(payload)["value"]

    def s(self, method, path, body=None, timeout=60):
        return self.call(method, "/session/%s%s" % (self.session, path), body, timeout)

    def start(self, chromium, user_data_dir):
        args = [
            "--headless",
            "--no-sandbox",  # root in CI
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--no-default-browser-check",
            # The machine has no network but loopback: no calls home.
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--user-data-dir=" + user_data_dir,
            "--window-size=1024,768",
            # chromedriver talks to Chromium over a pipe, not a port.
            "--remote-debugging-pipe",
        ]
        caps = {
            "browserName": "chrome",
            "pageLoadStrategy": "eager",
            # The console (errors, CSP violations) and the network requests
            # (DevTools Network events), read with log().
            "goog:loggingPrefs": {"browser": "ALL", "performance": "ALL"},
            "goog:chromeOptions": {"binary": chromium, "args": args,
                                   "perfLoggingPrefs": {"enableNetwork": True, "enablePage": False}},
        }
        v = self.call("POST", "/session", {"capabilities": {"alwaysMatch": caps}}, timeout=120)
        self.session = v["sessionId"]
        c = v.get("capabilities", {})
        return c.get("browserVersion", "?"), c.get("chrome", {}).get("chromedriverVersion", "?").split(" ")[0]

    def stop(self):
        if self.session:
            try:
                self.call("DELETE", "/session/" + self.session, timeout=30)
            except WebDriverError as e:
                info("closing the session: %s" % e)
            self.session = None

    def get(self, url):
        self.s("POST", "/url", {"url": url})

    def title(self):
        return self.s("GET", "/title")

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def log(self, kind):
        """The entries of log kind ("browser", "performance") since the
        last call."""
        return self.s("POST", "/se/log", {"type": kind})

    def click(self, css):
        """A real click (scrolled into view, hit-tested) on the first
        element that css selects."""
        el = self.s("POST", "/element", {"using": "css selector", "value": css})
        self.s("POST", "/element/%s/click" % next(iter(el.values())), {})

    def type(self, css, text):
        """Types text into the first element that css selects."""
        el = self.s("POST", "/element", {"using": "css selector", "value": css})
        self.s("POST", "/element/%s/value" % next(iter(el.values())), {"text": text})

    def screenshot(self):
        return base64.b64decode(self.s("GET", "/screenshot"))

    def js_async(self, script, *args, timeout_s=20):
        self.s("POST", "/timeouts", {"script": int(timeout_s * 1000)})
        return self.s("POST", "/execute/async", {"script": script, "args": list(args)}, timeout=timeout_s + 30)


def check_page(wd, base):
    """/ui/?watch: the page's own EventSource, to done: 1,2,3,4,5."""
    t0 = time.monotonic()
    wd.get(base + "/ui/?watch")
    title = wd.title()
    # Wait for an outcome: "done: …", "error: …" or "failed".
    deadline = t0 + TITLE_WAIT_S
    while not re.match(r"^(done:|error:|failed)", title) and time.monotonic() < deadline:
        time.sleep(0.05)
        title = wd.title()
    waited = time.monotonic() - t0
    check("page: title", title, WANT_TITLE)
    info("title %r %.2f s after the navigation began" % (title, waited))

    text = wd.js("return document.getElementById('ticks').textContent")
    lines = text.splitlines()
    check("page: #ticks has 5 lines", len(lines), 5)
    ids, seqs, bad = [], [], []
    for line in lines:
        m = re.match(r"^id (\S*): (.*)$", line)
        if not m:
            bad.append(line)
            continue
        ids.append(m.group(1))
        try:
            tick = json.loads(m.group(2))
            seqs.append(tick.get("seq"))
            if not re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$", str(tick.get("time"))):
                bad.append(line)
        except ValueError:
            bad.append(line)
    check("page: event ids", ids, ["1", "2", "3", "4", "5"])
    check("page: the ticks' seq", seqs, [1, 2, 3, 4, 5])
    check("page: every line is \"id N: {seq, time}\"", bad, [])
    if title != WANT_TITLE or len(lines) != 5 or bad:
        info("#ticks: %r" % text)


# An EventSource on the watch method, reporting each event's time.
TIMED_EVENTS = """
const [url, want, done] = arguments;
const t0 = performance.now(), got = [];
const es = new EventSource(url);
const finish = (why) => { es.close(); done({why, got}); };
es.onmessage = (e) => {
  got.push({ms: Math.round(performance.now() - t0), id: e.lastEventId, data: e.data, state: es.readyState});
  if (got.length === want) finish("count");
};
es.onerror = (e) => {
  if (es.readyState === EventSource.CLOSED) finish("closed");
  else got.push({ms: Math.round(performance.now() - t0), error: true, state: es.readyState});
};
setTimeout(() => finish("timeout"), 15000);
"""


def check_incremental(wd, base):
    """Ticks a second apart reach the page one by one, not at the end."""
    r = wd.js_async(TIMED_EVENTS, base + "/api/v1/example/watch?count=3&intervalMs=1000", 3)
    msgs = [e for e in r["got"] if "id" in e]
    check("sse 3 x 1 s: outcome and ids", (r["why"], [e["id"] for e in msgs]), ("count", ["1", "2", "3"]))
    if len(msgs) == 3:
        first, last = msgs[0]["ms"], msgs[2]["ms"]
        if first < 1500 and last >= 1900:
            ok("sse 3 x 1 s: the first event arrives while the stream runs")
        else:
            fail("sse 3 x 1 s: the first event arrives while the stream runs",
                 "want: the first event in < 1500 ms, the last >= 1900 ms")
        info("events after %s ms" % ", ".join(str(e["ms"]) for e in msgs))


def check_error(wd, base):
    """count=5000 is a 400: the EventSource fails for good, no reconnect."""
    r = wd.js_async(TIMED_EVENTS, base + "/api/v1/example/watch?count=5000", 1)
    check("sse count=5000: the EventSource closes without an event", (r["why"], r["got"]), ("closed", []))


# MySvc.Chat over a WebSocket from the page's origin.
WS_CHAT = """
const [url, done] = arguments;
const got = [];
const ws = new WebSocket(url);
const t = setTimeout(() => { ws.close(); done({got, why: "timeout"}); }, 15000);
ws.onopen = () => ws.send(JSON.stringify({msg: "a"}));
ws.onmessage = (e) => {
  got.push(e.data);
  if (got.length === 1) ws.send(JSON.stringify({msg: "b"}));
  if (got.length === 2) ws.send("");  // ends the client's side
};
ws.onclose = (e) => { clearTimeout(t); done({got, why: "close", code: e.code, reason: e.reason}); };
"""


def check_websocket(wd, base):
    r = wd.js_async(WS_CHAT, "ws" + base[len("http"):] + "/api/v1/example/chat")
    got = [json.loads(m) if m.startswith("{") else m for m in r["got"]]
    check("websocket chat: each answer as it is asked", got, [{"msg": "A"}, {"msg": "B"}])
    check("websocket chat: closed with 1000", (r["why"], r.get("code")), ("close", 1000))


CORS_PATCH = """
const [url, done] = arguments;
fetch(url, {method: "PATCH", headers: {"Content-Type": "application/json", "Grpc-Metadata-Team": "e2e"},
            body: JSON.stringify({pageCount: 96})})
  .then(async (r) => done({status: r.status, body: await r.json()}))
  .catch((e) => done({error: e.name + ": " + e.message}));
"""


def other_origin(base, host):
    """base (http://localhost:PORT) on another host name: another origin."""
    scheme, rest = base.split("://", 1)
    return scheme + "://" + host + rest[rest.index(":"):]


def check_cors(wd, base):
    """A page from a second origin (the demo's own /ui/ under 127.0.0.1,
    which the demo allows with --cors-origin) calls the API at localhost
    with a PATCH and a JSON body: a preflight, then the call. From an
    origin the demo does not allow (127.0.0.2), the browser blocks it."""
    book = base + "/v1/shelves/poetry/books/leaves-of-grass"
    wd.get(other_origin(base, "127.0.0.1") + "/ui/")
    r = wd.js_async(CORS_PATCH, book)
    check("cors: a PATCH from an allowed origin succeeds",
          (r.get("status"), r.get("body", {}).get("pageCount"), r.get("body", {}).get("title"), r.get("error")),
          (200, 96, "Leaves of Grass", None))
    wd.get(other_origin(base, "127.0.0.2") + "/ui/")
    r = wd.js_async(CORS_PATCH, book)
    check("cors: a PATCH from an origin not allowed is blocked", (r.get("status"), (r.get("error") or "").split(":")[0]),
          (None, "TypeError"))


def note_reconnect(wd, base):
    """What an EventSource does when a stream ends before it closes it."""
    r = wd.js_async(TIMED_EVENTS, base + "/api/v1/example/watch?count=2&intervalMs=100", 5)
    seq = []
    for e in r["got"]:
        seq.append("error(readyState %d)" % e["state"] if e.get("error") else e["id"])
    info("an EventSource on count=2, waiting for 5 events: %s -> %s" % (" ".join(seq), r["why"]))


DOCS_READY_S = 30  # Swagger UI draws the demo's document in about 1.5 s
TRY_IT_S = 15
# Swagger UI's block of an operation has the id operations-TAG-OPERATIONID
# (the tag's dots escaped).
LIST_SHELVES = '.opblock[id$="-LibraryService_ListShelves"]'


def wait_for(wd, limit_s, script, *args):
    """Polls script until it returns something true, for at most limit_s;
    returns its last value and the seconds waited."""
    t0 = time.monotonic()
    while True:
        v = wd.js(script, *args)
        if v or time.monotonic() - t0 > limit_s:
            return v, time.monotonic() - t0
        time.sleep(0.05)


EXISTS = "return !!document.querySelector(arguments[0])"
TEXT = "const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : ''"


def open_try_it(wd, op):
    """Opens the operation that the CSS selector op selects and clicks
    "Try it out", as a user does; Execute is then on the page."""
    wd.click(op + " .opblock-summary-control")
    wait_for(wd, TRY_IT_S, EXISTS, op + " .try-out__btn")
    wd.click(op + " .try-out__btn")
    wait_for(wd, TRY_IT_S, EXISTS, op + " .execute")


def requested_urls(perf_log):
    """The URLs of every request the page made (DevTools
    Network.requestWillBeSent events in the performance log)."""
    urls = []
    for entry in perf_log:
        m = json.loads(entry["message"]).get("message", {})
        if m.get("method") == "Network.requestWillBeSent":
            urls.append(m["params"]["request"]["url"])
    return urls


def document_operations(base):
    """The operations of the document the page shows, read without the
    browser."""
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(base + "/openapi.json", timeout=30) as r:
        doc = json.load(r)
    methods = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
    return sorted(op["operationId"] for item in doc["paths"].values() for m, op in item.items() if m in methods)


def check_docs(wd, base, screenshot):
    """/docs/: Swagger UI draws every operation of the document, with no
    console error and no request to any other host, and Try-it on
    ListShelves (GET /v1/shelves) gets a 200 from the demo."""
    wd.log("browser")  # what earlier checks left
    wd.log("performance")
    wd.s("POST", "/window/rect", {"width": 1280, "height": 1000})
    wd.get(base + "/docs/")
    ready, waited = wait_for(wd, DOCS_READY_S, "return document.body.dataset.docsReady === '1'")
    check("docs: Swagger UI draws the document (onComplete)", ready, True)
    info("drawn %.2f s after the navigation began" % waited)
    ops = wd.js("return Array.from(document.querySelectorAll('.opblock[id^=\"operations-\"]'))"
                ".map(e => e.id.slice(e.id.lastIndexOf('-') + 1)).sort()")
    want = document_operations(base)
    check("docs: the operations list is the document's (%d operations)" % len(want), ops, want)

    # Try-it: open the operation, "Try it out", "Execute"; the response
    # table shows the status the demo answered.
    text = TEXT
    open_try_it(wd, LIST_SHELVES)
    wd.click(LIST_SHELVES + " .execute")
    response = LIST_SHELVES + " .live-responses-table"
    status, waited = wait_for(wd, TRY_IT_S, text, response + " tr.response .response-col_status")
    check("docs: Try-it on GET /v1/shelves answers 200", status, "200")
    info("the response shown %.2f s after Execute" % waited)
    body = wd.js(text, response + " .response-col_description pre")
    check("docs: Try-it shows the demo's shelves", [s.get("name") for s in json.loads(body or "{}").get("shelves", [])],
          ["shelves/fiction", "shelves/poetry"])
    check("docs: Try-it called the demo", wd.js(text, LIST_SHELVES + " .request-url pre"), base + "/v1/shelves")

    if screenshot:
        # From the title to Try-it's answer.
        wd.s("POST", "/window/rect", {"width": 1280, "height": 1560})
        wd.js("window.scrollTo(0, 0)")
        time.sleep(0.3)
        with open(screenshot, "wb") as f:
            f.write(wd.screenshot())
        info("screenshot: %s" % screenshot)

    errors = ["%s: %s" % (e.get("level"), e.get("message")) for e in wd.log("browser") if e.get("level") == "SEVERE"]
    check("docs: no JavaScript error, no CSP violation (console)", errors, [])
    urls = requested_urls(wd.log("performance"))
    origin = urllib.parse.urlsplit(base)
    network = [u for u in urls if urllib.parse.urlsplit(u).scheme in ("http", "https", "ws", "wss")]
    outside = [u for u in network if urllib.parse.urlsplit(u).netloc != origin.netloc]
    check("docs: no request to another host", outside, [])
    if not any(u.startswith(base + "/docs/swagger-ui-bundle.js") for u in network):
        fail("docs: the network log has the page's requests", "got: %r" % network)
    info("%d requests, all to %s: %s" % (len(network), origin.netloc,
                                         ", ".join(sorted({urllib.parse.urlsplit(u).path for u in network}))))


WATCH = '.opblock[id$="-MySvc_Watch"]'
# Watches the body Try-it shows for a stream, each 20 ms: when each tick
# (by its seq) first shows, and what shows at the end.
WATCH_BODY = """
const [css, want, done] = arguments;
const t0 = performance.now(), first = {};
const seqs = (text) => (text.match(/"seq":\\s*\\d+/g) || []).map((m) => Number(m.split(":")[1]));
const poll = setInterval(() => {
  const e = document.querySelector(css), text = e ? e.textContent : "";
  for (const seq of seqs(text)) {
    if (!(seq in first)) first[seq] = {ms: Math.round(performance.now() - t0), shown: seqs(text)};
  }
  if (want in first || performance.now() - t0 > 15000) {
    clearInterval(poll);
    done({first, text});
  }
}, 20);
"""


def check_docs_stream(wd, base):
    """Try-it on MySvc.Watch (GET /api/v1/example/watch, count=3, a tick a
    second): the docs page asks for the first media type the document
    lists, text/event-stream, and shows each tick as it arrives, not
    "can't parse JSON" at the end; with application/x-ndjson chosen, the
    ticks one per line."""
    wd.log("browser")
    wd.get(base + "/docs/")
    ready, _ = wait_for(wd, DOCS_READY_S, "return document.body.dataset.docsReady === '1'")
    check("docs stream: Swagger UI draws the document", ready, True)
    text = TEXT
    open_try_it(wd, WATCH)
    wd.type(WATCH + ' tr[data-param-name="count"] input', "3")
    wd.type(WATCH + ' tr[data-param-name="intervalMs"] input', "1000")
    body = WATCH + " .live-responses-table .response-col_description pre"
    wd.click(WATCH + " .execute")
    r = wd.js_async(WATCH_BODY, body, 3, timeout_s=20)
    first = {int(k): v for k, v in r["first"].items()}
    check("docs stream: Try-it shows the three ticks", sorted(first), [1, 2, 3])
    if len(first) == 3:
        info("ticks shown after %s ms" % ", ".join(str(first[k]["ms"]) for k in (1, 2, 3)))
        # Ticks a second apart: the first shows alone, the third a second
        # or more after it (2 s, less the first's wait to be seen).
        if first[1]["shown"] == [1] and first[3]["ms"] - first[1]["ms"] >= 1000:
            ok("docs stream: each tick shows as it arrives")
        else:
            fail("docs stream: each tick shows as it arrives", "got: %r" % r["first"])
    final = wd.js(text, body)
    check("docs stream: the body is the events, not \"can't parse JSON\"",
          ("can't parse JSON" in final, final.startswith("id: 1\ndata: {"), "event: end" in final), (False, True, True))
    check("docs stream: Try-it asked for text/event-stream",
          "accept: text/event-stream" in wd.js(text, WATCH + " .curl-command").lower(), True)
    headers = wd.js("return Array.from(document.querySelectorAll(arguments[0])).map(e => e.textContent.trim())",
                    WATCH + " .live-responses-table .headerline")
    check("docs stream: the response is text/event-stream", "content-type: text/event-stream" in headers, True)

    # The NDJSON framing: the ticks one per line.
    wd.click(WATCH + ' select.content-type option[value="application/x-ndjson"]')
    wd.click(WATCH + " .execute")
    # Wait for the new answer's three lines: until it replaces it, the
    # page still shows the event stream's, whose ticks WATCH_BODY counts.
    wait_for(wd, 20, "const e = document.querySelector(arguments[0]);"
             " return !!e && e.textContent.split('\\n').filter(l => l.startsWith('{')).length >= 3", body)
    lines = wd.js(text, body).splitlines()
    check("docs stream: NDJSON shows the ticks one per line",
          ([json.loads(line).get("seq") for line in lines if line.startswith("{")], len(lines)), ([1, 2, 3], 3))
    errors = ["%s: %s" % (e.get("level"), e.get("message")) for e in wd.log("browser") if e.get("level") == "SEVERE"]
    check("docs stream: no JavaScript error, no CSP violation (console)", errors, [])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--webdriver", required=True)
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--user-data-dir", required=True)
    ap.add_argument("--screenshot", help="write a picture of the docs page here (PNG)")
    ap.add_argument("--clients", metavar="URL",
                    help="the origin (http://127.0.0.1:PORT) serving the bundle of e2e/browser/web: run its "
                         "connect-web and grpc-web calls and the README's snippets (clients.py)")
    ap.add_argument("base", help="the demo's HTTP address, http://127.0.0.1:PORT")
    a = ap.parse_args()

    wd = WebDriver(a.webdriver)
    try:
        browser, driver = wd.start(a.chromium, a.user_data_dir)
    except (WebDriverError, KeyError, ValueError) as e:
        fail("browser: start a headless Chromium session", str(e))
        return 2
    ok("browser: start a headless Chromium session")
    info("Chromium %s, ChromeDriver %s" % (browser, driver))
    try:
        steps = [(f.__name__, f) for f in (check_page, check_incremental, check_error, check_websocket, check_cors,
                                            note_reconnect)]
        steps.append(("check_docs", lambda wd, base: check_docs(wd, base, a.screenshot)))
        steps.append(("check_docs_stream", check_docs_stream))
        if a.clients:
            steps.append(("check_clients", lambda wd, base: clients.check_clients(wd, base, a.clients)))
            steps.append(("check_readme", lambda wd, base: clients.check_readme(wd, a.clients)))
        for name, step in steps:
            try:
                step(wd, a.base)
            except (WebDriverError, KeyError, TypeError, ValueError, OSError) as e:
                fail("%s: %s" % (name, type(e).__name__), str(e))
    finally:
        wd.stop()
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
