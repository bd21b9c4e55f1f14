"""The verdict on grpc-gateway's integration tests run against protorest
(scripts/e2e-grpcgateway.sh): their `go test -json` events compared with
the failures expected (expected-failures.txt).

    verdict.py EXPECTED SOURCE_DIR EVENTS.json...

A failure is where a test failed: each file:line its output names (an
assertion, t.Errorf or t.Fatalf; t.Log lines are left out, read from the
source in SOURCE_DIR), or for a test that timed out, the line its
goroutine was blocked on. Each line of EXPECTED names a test, the
failures it is expected to have and the MIGRATING.md row that explains
them (a test listed on several lines has the failures of all of them):

    TestName/sub  integration_test.go:371,377,861|865  MIGRATING.md §5 "row": why

Each location must fail; "861|865" is one failure that shows at either
line, as timing decides.

A failure not listed is unexpected, and so is a listed one that did not
happen (the list must not rot), and a "harness:" line from the harness.
Prints a line per test that failed and a summary; exits 1 on anything
unexpected.
"""

import collections
import json
import os
import re
import sys

LOCATION = re.compile(r"^\s+(\w+\.go):(\d+): ")
FRAME = re.compile(r"/(\w+_test\.go):(\d+)\b")


def read_expected(path):
    """{test: [(reason, {(file, line), ...}), ...]} from the expectation
    file: one entry per failure expected, the lines it may show at."""
    expected = collections.defaultdict(list)
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or "MIGRATING.md" not in parts[2]:
                sys.exit("%s:%d: want TEST FILE:LINE[,LINE...] and the MIGRATING.md row: %s" % (path, n, line))
            test, where, reason = parts
            file = None
            for item in where.split(","):
                if ":" in item:
                    file, item = item.rsplit(":", 1)
                lines = item.split("|")
                if file is None or not all(x.isdigit() for x in lines):
                    sys.exit("%s:%d: bad location %r" % (path, n, item))
                expected[test].append((reason, {(file, int(x)) for x in lines}))
    return expected


class Source:
    """The lines of the tests' source files, to tell t.Log from failures."""

    def __init__(self, root):
        self.root, self.files = root, {}

    def line(self, file, n):
        if file not in self.files:
            try:
                with open(os.path.join(self.root, file)) as f:
                    self.files[file] = f.read().split("\n")
            except OSError:
                self.files[file] = []
        lines = self.files[file]
        return lines[n - 1] if 0 < n <= len(lines) else ""


def read_events(paths):
    """Each test's last action and output, and the harness's complaints."""
    action, output, harness = {}, collections.defaultdict(list), []
    for path in paths:
        with open(path) as f:
            for raw in f:
                try:
                    e = json.loads(raw)
                except ValueError:
                    harness.append("not a test2json event: " + raw.rstrip())
                    continue
                test = e.get("Test")
                if e.get("Action") == "output":
                    if test:
                        output[test].append(e["Output"])
                    elif e["Output"].startswith("harness:"):
                        harness.append(e["Output"].rstrip())
                elif test and e.get("Action") in ("pass", "fail", "skip"):
                    action[test] = e["Action"]
    return action, output, harness


def blocked_at(test, lines):
    """Where the goroutine of test was blocked when the run timed out: the
    innermost frame in a _test.go file of the goroutine running it."""
    top = test.split("/")[0]
    for block in "".join(lines).split("\n\n"):
        if "_test." + top + "(" in block:
            m = FRAME.search(block)
            if m:
                return (m.group(1), int(m.group(2)))
    return None


def failures(test, lines, source):
    """The (file, line) failures in a failed test's output; a test that
    timed out failed where it was blocked. None when there are none."""
    found = []
    for line in lines:
        m = LOCATION.match(line)
        if m:
            loc = (m.group(1), int(m.group(2)))
            if ".Log" not in source.line(*loc) and loc not in found:
                found.append(loc)
    if any(line.startswith("panic: test timed out") for line in lines):
        loc = blocked_at(test, lines)
        if loc and loc not in found:
            found.append(loc)
    return found


def main():
    expected_path, source_dir, events = sys.argv[1], sys.argv[2], sys.argv[3:]
    expected = read_expected(expected_path)
    action, output, harness = read_events(events)
    source = Source(source_dir)
    parents = {t.rsplit("/", 1)[0] for t in action if "/" in t}

    counts = collections.Counter()
    unexpected = []
    for test in sorted(action):
        got = action[test]
        if test in parents and got != "fail":
            continue
        if got != "fail":
            counts[got] += 1
            continue
        seen = failures(test, output[test], source)
        if test in parents and not seen:
            continue  # failed for its subtests
        want = set().union(*(alts for _, alts in expected.get(test, [])))
        extra = [loc for loc in seen if loc not in want]
        if not seen:
            unexpected.append(test)
            print("FAIL %s: failed, at no line its output names" % test)
            for line in output[test]:
                print("  | " + line.rstrip())
            continue
        if not extra:
            counts["failed as expected"] += 1
            print("ok   %s fails as expected: %s" % (test, ", ".join("%s:%d" % loc for loc in seen)))
            continue
        unexpected.append(test)
        print("FAIL %s: unexpected failure at %s" % (test, ", ".join("%s:%d" % loc for loc in extra)))
        for line in output[test]:
            print("  | " + line.rstrip())

    for test in sorted(expected):
        seen = set()
        if action.get(test) == "fail":
            seen = set(failures(test, output[test], source))
        stale = [alts for _, alts in expected[test] if not alts & seen]
        if not stale:
            continue
        unexpected.append(test)
        state = {"pass": "passes", "skip": "is skipped", None: "did not run"}.get(action.get(test), "fails elsewhere")
        print("FAIL %s %s, but expected-failures lists it at %s: remove that" % (
            test, state, ", ".join("|".join("%s:%d" % loc for loc in sorted(alts)) for alts in stale)))

    for line in harness:
        unexpected.append(line)
        print("FAIL " + line)

    print("grpc-gateway suite: %d passed, %d failed as expected (each a MIGRATING.md difference), %d skipped, %d unexpected" % (
        counts["pass"], counts["failed as expected"], counts["skip"], len(unexpected)))
    sys.exit(1 if unexpected else 0)


if __name__ == "__main__":
    main()
