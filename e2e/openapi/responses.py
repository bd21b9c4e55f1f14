"""Every response the demo gives validates against its OpenAPI document.

Used by scripts/e2e-openapi.sh, in a venv with openapi-core (PyPI):

    python e2e/openapi/responses.py http://127.0.0.1:PORT

Reads the document the demo serves (/openapi.json), sends a set of
requests that covers every unary operation of it, with successes and
errors (400, 404, 409), and validates each response, status, headers
and body, with openapi-core against the operation's responses; the
requests of the successes are validated against the operation too (what
the gateway accepts, the document must allow), and requests that break
the accounts' protovalidate rules are invalid against it. The cases run
in order: a shelf is created, filled, read, changed and deleted.

Prints an "ok   NAME" or "FAIL NAME" line per check; exits 1 when a check
failed.
"""

import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

from openapi_core import OpenAPI
from openapi_core.testing import MockRequest, MockResponse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tally  # noqa: E402
from tally import fail, ok  # noqa: E402


# (name, method, path with query, JSON body or None, the status wanted).
# The operation each exercises is found by openapi-core from the method
# and path, as a client's would be.
CASES = [
    # example.v1.MySvc
    ("Echo", "POST", "/api/v1/example/echo", {"msg": "hello"}, 200),
    ("Upper", "POST", "/api/v1/example/upper", {"msg": "hello"}, 200),
    ("Upper: bad JSON", "POST", "/api/v1/example/upper", b'{"msg":', 400),
    ("Upper: a number for a string", "POST", "/api/v1/example/upper", {"msg": 1}, 400),
    # bookstore.v1.BookService
    ("BookService.GetBook", "GET", "/v1/books/dune", None, 200),
    ("BookService.GetBook: not found", "GET", "/v1/books/nope", None, 404),
    # library.v1.LibraryService, around a shelf of its own
    ("ListShelves", "GET", "/v1/shelves?pageSize=1", None, 200),
    ("ListShelves: next page", "GET", "/v1/shelves?pageSize=1&pageToken={token}", None, 200),
    ("ListShelves: a token it did not give", "GET", "/v1/shelves?pageToken=1", None, 400),
    ("ListShelves: pageSize not a number", "GET", "/v1/shelves?pageSize=abc", None, 400),
    ("ListShelves: an unknown parameter", "GET", "/v1/shelves?colour=red", None, 400),
    ("CreateShelf", "POST", "/v1/shelves", {"theme": "Checked"}, 200),
    ("GetShelf", "GET", "/v1/{shelf}", None, 200),
    ("GetShelf: not found", "GET", "/v1/shelves/nope", None, 404),
    ("CreateBook", "POST", "/v1/{shelf}/books?bookId=b1",
     {"title": "Checked", "author": "E2E", "pageCount": 3, "genre": "POETRY", "labels": {"k": "v"}}, 201),
    ("CreateBook: exists", "POST", "/v1/{shelf}/books?bookId=b1", {"title": "Again"}, 409),
    ("GetBook", "GET", "/v1/{shelf}/books/b1", None, 200),
    ("GetBook: not found", "GET", "/v1/{shelf}/books/nope", None, 404),
    ("ListBooks", "GET", "/v1/{shelf}/books?pageSize=10", None, 200),
    ("UpdateBook", "PATCH", "/v1/{shelf}/books/b1?updateMask=title,read", {"title": "Changed", "read": True}, 200),
    ("UpdateBook: derived mask", "PATCH", "/v1/{shelf}/books/b1", {"pageCount": 4}, 200),
    ("UpdateBook: a mask naming no field", "PATCH", "/v1/{shelf}/books/b1?updateMask=colour", {"title": "x"}, 400),
    ("MoveBook", "POST", "/v1/{shelf}/books/b1:move", {"otherShelfName": "shelves/poetry"}, 200),
    ("MoveBook: to no shelf", "POST", "/v1/shelves/poetry/books/b1:move", {"otherShelfName": "shelves/nope"}, 404),
    ("DeleteBook", "DELETE", "/v1/shelves/poetry/books/b1", None, 200),
    ("DeleteBook: gone", "DELETE", "/v1/shelves/poetry/books/b1", None, 404),
    ("DeleteShelf: not empty", "DELETE", "/v1/shelves/fiction", None, 400),
    ("DeleteShelf", "DELETE", "/v1/{shelf}?force=true", None, 200),
    ("DeleteShelf: gone", "DELETE", "/v1/{shelf}", None, 404),
    # accounts.v1.AccountService: its requests carry protovalidate rules,
    # which the gateway checks (400 names the fields)
    ("CreateAccount", "POST", "/v1/accounts", {"username": "checked", "email": "c@example.com", "age": 30}, 200),
    ("CreateAccount: exists", "POST", "/v1/accounts", {"username": "checked", "email": "c@example.com", "age": 30}, 409),
    ("CreateAccount: breaks rules", "POST", "/v1/accounts", {"username": "No", "email": "x", "age": 7}, 400),
    ("GetAccount", "GET", "/v1/accounts/checked", None, 200),
    ("GetAccount: not found", "GET", "/v1/accounts/nobody", None, 404),
    ("GetAccount: breaks the pattern", "GET", "/v1/accounts/No", None, 400),
    # Custom routes: the handler's own responses
    ("files", "GET", "/files/readme.txt", None, 200),
    ("openapi.json", "GET", "/openapi.json", None, 200),
    ("openapi.yaml", "GET", "/openapi.yaml", None, 200),
    ("docs page", "GET", "/docs/", None, 200),
    ("docs page: its script", "GET", "/docs/docs.js", None, 200),
    ("docs page: no such file", "GET", "/docs/nope.js", None, 404),
    ("streams page", "GET", "/ui/index.html", None, 200),
]


def send(base, method, target, body):
    data, headers = None, {"Accept": "application/json"}
    if isinstance(body, bytes):
        data = body
    elif body is not None:
        data = json.dumps(body).encode()
    if data is not None:
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(base + target, data=data, method=method, headers=headers)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(req, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def main():
    base = sys.argv[1].rstrip("/")
    _, _, doc = send(base, "GET", "/openapi.json", None)
    openapi = OpenAPI.from_dict(json.loads(doc))
    spec = json.loads(doc)
    check_the_checker(openapi, base)
    check_rules(openapi, base)
    covered = set()
    shelf, token = "shelves/none", ""
    for name, method, target, body, want in CASES:
        target = target.replace("{shelf}", shelf).replace("{token}", urllib.parse.quote(token))
        status, headers, data = send(base, method, target, body)
        if status != want:
            fail("%s: %s %s is %d" % (name, method, target, want), "got %d: %.300r" % (status, data))
            continue
        if name == "CreateShelf":
            shelf = json.loads(data)["name"]
        if name == "ListShelves":
            token = json.loads(data)["nextPageToken"]
        url = urllib.parse.urlsplit(base + target)
        covered.add(operation_id(spec, method, url.path))
        query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        ct = headers.get("Content-Type", "")
        request = MockRequest(base, method.lower(), url.path, args=query,
                              data=body if isinstance(body, bytes) else (json.dumps(body).encode() if body is not None else b""),
                              content_type="application/json" if body is not None else None)
        response = MockResponse(data, status_code=status, headers=dict(headers), content_type=ct.split(";")[0])
        problems = []
        if status < 400:
            try:
                openapi.validate_request(request)
            except Exception as e:  # openapi-core's errors have no common base worth naming
                problems.append("request: %s: %s" % (type(e).__name__, cause(e)))
        try:
            openapi.validate_response(request, response)
        except Exception as e:
            problems.append("response: %s: %s" % (type(e).__name__, cause(e)))
        check = "%s: %s %s %d validates" % (name, method, url.path, status)
        if problems:
            fail(check, *problems, "body: %.300r" % data)
        else:
            ok(check)
    unary = {op["operationId"] for item in spec["paths"].values() for m, op in item.items()
             if isinstance(op, dict) and "operationId" in op and "x-protorest-streaming" not in op}
    missing = sorted(unary - covered)
    if missing:
        fail("every unary operation of the document is exercised", "not: %s" % ", ".join(missing))
    else:
        ok("every unary operation of the document is exercised (%d)" % len(unary))
    print("responses.py: %d passed, %d failed" % (tally.passed, tally.failed))
    return 1 if tally.failed else 0


def operation_id(spec, method, path):
    """The operation of the document that method and path are, matched
    as a client would: a {variable} is one segment; literals win."""
    best = None
    for template, item in spec["paths"].items():
        pattern = "^" + re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(template)) + "$"
        op = item.get(method.lower())
        if op and re.match(pattern, path):
            literal = len(re.sub(r"\{[^}]*\}", "", template))
            if best is None or literal > best[0]:
                best = (literal, op["operationId"])
    return best and best[1]


def check_the_checker(openapi, base):
    """openapi-core rejects a Shelf whose createTime is a number, and a
    Status whose code is a string: the checks below are not vacuous."""
    for name, path, body, status in [
        ("a Shelf with a numeric createTime", "/v1/shelves/fiction", {"name": "shelves/fiction", "createTime": 5}, 200),
        ("a Status with a string code", "/v1/shelves/nope", {"code": "NOT_FOUND", "message": "x", "details": []}, 404),
    ]:
        request = MockRequest(base, "get", path)
        response = MockResponse(json.dumps(body).encode(), status_code=status, content_type="application/json")
        try:
            openapi.validate_response(request, response)
            fail("the checker rejects %s" % name)
        except Exception:
            ok("the checker rejects %s" % name)


def check_rules(openapi, base):
    """The accounts' protovalidate rules are in the document: openapi-core
    finds requests that break them invalid (each a rule the gateway
    refuses with 400), and takes one that keeps them."""
    valid = {"username": "ada_l", "email": "ada@example.com", "age": 36, "interests": ["maths"]}
    for name, method, path, body in [
        ("a username too short (minLength)", "post", "/v1/accounts", dict(valid, username="al")),
        ("a username against the pattern", "post", "/v1/accounts", dict(valid, username="Ada")),
        ("an email that is not one (format)", "post", "/v1/accounts", dict(valid, email="not-an-email")),
        ("an age under 13 (minimum)", "post", "/v1/accounts", dict(valid, age=7)),
        ("an interest twice (uniqueItems)", "post", "/v1/accounts", dict(valid, interests=["a", "a"])),
        ("six interests (maxItems)", "post", "/v1/accounts", dict(valid, interests=list("abcdef"))),
        ("a path username against the pattern", "get", "/v1/accounts/No", None),
    ]:
        request = MockRequest(base, method, path, data=json.dumps(body).encode() if body else b"",
                              content_type="application/json" if body else None)
        try:
            openapi.validate_request(request)
            fail("the document's rules make openapi-core reject %s" % name)
        except Exception:
            ok("the document's rules make openapi-core reject %s" % name)
    request = MockRequest(base, "post", "/v1/accounts", data=json.dumps(valid).encode(), content_type="application/json")
    try:
        openapi.validate_request(request)
        ok("openapi-core takes an account that keeps the rules")
    except Exception as e:
        fail("openapi-core takes an account that keeps the rules", "%s: %s" % (type(e).__name__, cause(e)))


def cause(e):
    """The innermost reason of an openapi-core error: its schema errors."""
    parts = [str(e)]
    inner = getattr(e, "__cause__", None)
    while inner is not None:
        parts.append(str(inner))
        for se in getattr(inner, "schema_errors", []) or []:
            parts.append("%s at %s" % (se.message, "/".join(str(p) for p in se.absolute_path)))
        inner = getattr(inner, "__cause__", None)
    return "; ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
