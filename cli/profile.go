package cli

import (
	"fmt"
	"os"
	"runtime/pprof"

	urfave "github.com/urfave/cli/v2"
)

// cpuProfileFlag is check's --cpuprofile: a CPU profile of the search and
// its report, for `go tool pprof`.
func cpuProfileFlag() urfave.Flag {
	return &urfave.StringFlag{Name: "cpuprofile", Usage: "write a CPU profile of the search to this `FILE`, for 'go tool pprof' (where a model of your own spends its time)"}
}

// startCPUProfile starts the CPU profile --cpuprofile asks for, after
// checkOutputFile has found its file writable, and returns what stops it
// and writes the file out; without the flag, both do nothing.
func startCPUProfile(c *urfave.Context) (stop func() error, err error) {
	file := c.String("cpuprofile")
	if file == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, usagef("--cpuprofile %s: %v", file, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(file)
		return nil, fmt.Errorf("--cpuprofile %s: %w", file, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("--cpuprofile %s: %w", file, err)
		}
		return nil
	}, nil
}
