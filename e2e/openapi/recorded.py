"""Responses an end-to-end script recorded validate against the document.

Used by scripts/e2e-python.sh, in the venv of openapi-core (PyPI):

    python e2e/openapi/recorded.py DOCUMENT.json RECORDS.tsv

RECORDS holds one line per response a script received: method, URL,
status, Content-Type and the body in base64, separated by tabs. Each
response with a JSON body (unary answers and errors) to a request that is
an operation of the document is validated with openapi-core against that
operation (status, body); streams (NDJSON, SSE) and paths that are not
operations (/healthz, /openapi.json, an unknown path's 404) are counted
and skipped. Prints an "ok"/"FAIL" line per response and a summary; exits
1 when one failed, or when none was validated.
"""

import base64
import json
import sys
import urllib.parse

from openapi_core import OpenAPI
from openapi_core.templating.paths.exceptions import PathNotFound, OperationNotFound
from openapi_core.testing import MockRequest, MockResponse


def main():
    doc, records = sys.argv[1], sys.argv[2]
    with open(doc) as f:
        openapi = OpenAPI.from_dict(json.load(f))
    passed = failed = skipped = 0
    mutant = None
    with open(records) as f:
        for line in f:
            method, url, status, ct, body = line.rstrip("\n").split("\t")
            ct = ct.split(";")[0].strip()
            if ct != "application/json":
                skipped += 1
                continue
            u = urllib.parse.urlsplit(url)
            base = "%s://%s" % (u.scheme, u.netloc)
            request = MockRequest(base, method.lower(), u.path,
                                  args=urllib.parse.parse_qs(u.query, keep_blank_values=True))
            response = MockResponse(base64.b64decode(body), status_code=int(status), content_type=ct)
            name = "%s %s %s" % (method, u.path, status)
            try:
                openapi.validate_response(request, response)
            except (PathNotFound, OperationNotFound):
                skipped += 1
                continue
            except Exception as e:
                failed += 1
                print("FAIL %s: %s: %s" % (name, type(e).__name__, getattr(e, "__cause__", None) or e), flush=True)
                print("  body: %.300r" % base64.b64decode(body), flush=True)
                continue
            passed += 1
            print("ok   " + name, flush=True)
            if mutant is None:
                mutant = mutate(request, response)
    # Not vacuous: openapi-core rejects the first validated response with
    # its string fields turned into numbers.
    if mutant is not None:
        try:
            openapi.validate_response(*mutant)
            failed += 1
            print("FAIL the checker rejects a response whose strings are numbers", flush=True)
        except Exception:
            print("ok   the checker rejects a response whose strings are numbers", flush=True)
    print("recorded.py: %d validated, %d failed, %d skipped (streams, paths not in the document)"
          % (passed, failed, skipped))
    sys.exit(1 if failed or not passed else 0)


def mutate(request, response):
    """The request, and the response with each string field of its JSON
    object a number; None when it has no string field."""
    body = json.loads(response.data)
    if not isinstance(body, dict):
        return None
    changed = {k: (len(v) if isinstance(v, str) else v) for k, v in body.items()}
    if changed == body:
        return None
    return request, MockResponse(json.dumps(changed).encode(), status_code=response.status_code,
                                 content_type="application/json")


if __name__ == "__main__":
    main()
