package main

import (
	"context"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/protorest/protorest/internal/memreturn"
)

// memoryLimitShare is the share of --memory-limit the Go runtime's limit
// is set to: the rest is for what the runtime does not count (the
// kernel's socket buffers, the binary's pages).
const memoryLimitShare = 0.9

// cgroupMemoryFiles are where a process reads its container's memory
// limit: cgroup v2, then v1.
var cgroupMemoryFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// setMemoryLimit sets the Go runtime's memory limit to memoryLimitShare
// of --memory-limit (by default the container's), unless GOMEMLIMIT is
// in the environment; it must run before the gateway is made, whose
// response budget follows the limit. It returns the limit set, 0 if none.
func (c *serveConfig) setMemoryLimit(lookupEnv func(string) (string, bool)) int64 {
	if _, ok := lookupEnv("GOMEMLIMIT"); ok {
		return 0
	}
	limit := c.memoryLimit
	if limit < 0 {
		limit = containerMemoryLimit(cgroupMemoryFiles)
	}
	if limit <= 0 {
		return 0
	}
	set := int64(float64(limit) * memoryLimitShare)
	debug.SetMemoryLimit(set)
	return set
}

// containerMemoryLimit is the memory limit in the first of files that
// has one, 0 if none does ("max", no file, or a v1 limit of about 2^63:
// none).
func containerMemoryLimit(files []string) int64 {
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n >= 1<<62 {
			return 0
		}
		return n
	}
	return 0
}

// returnMemory gives memory a burst left behind back to the operating
// system (memreturn), checking every --return-memory-every, until ctx
// ends; each release is logged at debug level.
func (c *serveConfig) returnMemory(ctx context.Context, log *slog.Logger) {
	if c.returnMemoryEvery <= 0 {
		return
	}
	memreturn.Run(ctx, c.returnMemoryEvery, func(r memreturn.Release) {
		log.Debug("memory given back", "before_mib", r.Before>>20, "after_mib", r.After>>20, "took", r.Took.Round(time.Microsecond))
	})
}
