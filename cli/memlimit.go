package cli

import (
	"os"
	"path"
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
