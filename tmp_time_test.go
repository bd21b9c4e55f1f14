package protorest_test

import (
	"context"
	"os"
	"runtime/pprof"
	"testing"
	"time"
	"syscall"

	"github.com/protorest/protorest"
)

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestTmpTime(t *testing.T) {
	files := routeSet(t, 5000)
	var gws []*protorest.Gateway
	for range 5 {
		gw := protorest.NewGateway()
		if err := gw.RegisterRemote(context.Background(), nil, protorest.WithRemoteFiles(files, "many.v1.Many")); err != nil {
			t.Fatal(err)
		}
		gws = append(gws, gw)
	}
	f, _ := os.Create("/tmp/cpu2.out")
	pprof.StartCPUProfile(f)
	for _, gw := range gws {
		c0 := cpu()
		n := len(gw.OpenAPI())
		t.Log("openapi cpu", cpu()-c0, n)
	}
	pprof.StopCPUProfile()
}
