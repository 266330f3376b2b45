package cli

import (
	"os"
	"path"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
)

// memoryFiles are where the memory available to vacheck is read from:
// /proc/meminfo, /proc/self/cgroup and the cgroup file system's root.
type memoryFiles struct {
	meminfo, cgroup, root string
}

var systemMemoryFiles = memoryFiles{meminfo: "/proc/meminfo", cgroup: "/proc/self/cgroup", root: "/sys/fs/cgroup"}

// defaultMaxMemory is three quarters of the memory available, so that a
// run that outgrows the machine, or the container it runs in, ends as
// incomplete instead of being killed.
func defaultMaxMemory() uint64 { return availableMemory(systemMemoryFiles) / 4 * 3 }

// availableMemory is the smaller of physical memory (8 GiB when it cannot
// be read) and the memory limit of every cgroup vacheck is in: cgroup v2
// memory.max and cgroup v1 memory.limit_in_bytes, of its own cgroup and of
// its ancestors (a container often sees its own cgroup as the root).
func availableMemory(f memoryFiles) uint64 {
	avail := uint64(8 << 30)
	if data, err := os.ReadFile(f.meminfo); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if fs := strings.Fields(line); len(fs) >= 2 && fs[0] == "MemTotal:" {
				if kb, err := strconv.ParseUint(fs[1], 10, 64); err == nil && kb > 0 {
					avail = kb * 1024
				}
			}
		}
	}
	for _, file := range cgroupLimitFiles(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		// "max" (v2) or a huge number (v1) means no limit.
		if v, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64); err == nil && v > 0 && v < avail {
			avail = v
		}
	}
	return avail
}

// cgroupLimitFiles lists the memory limit files that apply to vacheck.
func cgroupLimitFiles(f memoryFiles) []string {
	files := []string{path.Join(f.root, "memory.max"), path.Join(f.root, "memory", "memory.limit_in_bytes")}
	data, err := os.ReadFile(f.cgroup)
	if err != nil {
		return files
	}
	for _, line := range strings.Split(string(data), "\n") {
		// hierarchy-ID:controllers:path
		fs := strings.SplitN(line, ":", 3)
		if len(fs) != 3 || !strings.HasPrefix(fs[2], "/") {
			continue
		}
		var dir, name string
		switch {
		case fs[0] == "0" && fs[1] == "": // v2
			dir, name = f.root, "memory.max"
		case slices.Contains(strings.Split(fs[1], ","), "memory"): // v1
			dir, name = path.Join(f.root, "memory"), "memory.limit_in_bytes"
		default:
			continue
		}
		for p := path.Clean(fs[2]); p != "/" && p != "."; p = path.Dir(p) {
			files = append(files, path.Join(dir, p, name))
		}
	}
	return files
}

// searchGCPercent is the GOGC of a search. The explorer keeps its large
// arrays (the visited set, the BFS levels) outside the Go heap; what is
// left on the heap is small, so a collection costs little, and collecting
// at a quarter more than the live heap instead of twice keeps the garbage
// of its growing tables out of the peak (chang-roberts --n 6 --ids all,
// 2 workers: 69 instead of 73 MB).
const searchGCPercent = 25

// tuneGC sets the collector for a search and returns what restores it: the
// GOGC above and, with a memory limit, a soft limit at 7/8 of it, so that
// the collector works harder near the limit instead of letting garbage
// take the search past it.
func tuneGC(maxMemory uint64) (restore func()) {
	gc := debug.SetGCPercent(searchGCPercent)
	limit := debug.SetMemoryLimit(-1)
	if maxMemory > 0 {
		debug.SetMemoryLimit(int64(maxMemory / 8 * 7))
	}
	return func() {
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(limit)
	}
}
