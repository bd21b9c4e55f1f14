package framing

// maxFuzzInput is the length at which this package's fuzz targets cut
// their inputs. The readers start afresh with each message, and the
// targets' messages are at most 64 bytes, so a longer input finds
// nothing a shorter one cannot; but the engine minimizes each new input
// by trying a number of cuts quadratic in its length, each a run of the
// target (golang/go#48820). Uncut, inputs grew to a few KiB, and
// minimizing two of them took the whole -fuzzminimizetime of both
// workers, at 0 execs/s; when that timed out, the worker was killed and
// restarted and the input kept whole, to breed longer ones.
const maxFuzzInput = 256
