"""The check lines and counts of the e2e checkers (e2e/openapi/*.py,
e2e/browser/check.py): an "ok   NAME" or "FAIL NAME" line per check,
detail lines indented under a failure, "     (...)" lines with facts."""

passed = 0
failed = 0


def ok(name):
    global passed
    passed += 1
    print("ok   " + name, flush=True)


def fail(name, *details):
    global failed
    failed += 1
    print("FAIL " + name, flush=True)
    for d in details:
        print("  " + d, flush=True)


def check(name, got, want):
    if got == want:
        ok(name)
    else:
        fail(name, "got:  %r" % (got,), "want: %r" % (want,))


def info(text):
    print("     (%s)" % text, flush=True)
