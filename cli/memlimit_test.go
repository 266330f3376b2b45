package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDefaultMemoryLimitHonoursCgroups: the default --max-memory is 3/4 of
// the smaller of physical memory and the cgroup limits (v2 memory.max, v1
// memory.limit_in_bytes, of the own cgroup or an ancestor), read from a
// fake file system. It used to read physical memory only, so in a
// container the run was killed instead of ending as incomplete.
func TestDefaultMemoryLimitHonoursCgroups(t *testing.T) {
	t.Parallel()
	write := func(dir, name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const gib = 1 << 30
	for _, tt := range []struct {
		name   string
		cgroup string            // /proc/self/cgroup
		files  map[string]string // under the cgroup root
		want   uint64
	}{
		{"no cgroup limit", "0::/\n", map[string]string{"memory.max": "max\n"}, 16 * gib},
		{"v2 root", "0::/\n", map[string]string{"memory.max": "2147483648\n"}, 2 * gib},
		{"v2 own cgroup", "0::/user.slice/job\n", map[string]string{"memory.max": "max\n", "user.slice/job/memory.max": "1073741824\n"}, 1 * gib},
		{"v2 ancestor", "0::/user.slice/job\n", map[string]string{"user.slice/memory.max": "3221225472\n", "user.slice/job/memory.max": "max\n"}, 3 * gib},
		{"v1", "4:memory:/docker/abc\n1:cpu:/\n", map[string]string{"memory/docker/abc/memory.limit_in_bytes": "4294967296\n"}, 4 * gib},
		{"v1 unlimited", "4:memory:/\n", map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712\n"}, 16 * gib},
		{"v1 seen as the root", "4:memory:/process_api/x\n", map[string]string{"memory/memory.limit_in_bytes": "536870912\n"}, gib / 2},
		{"larger than physical memory", "0::/\n", map[string]string{"memory.max": "68719476736\n"}, 16 * gib},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(dir, "meminfo", "MemTotal:       16777216 kB\nMemFree:  1000 kB\n")
			write(dir, "cgroup", tt.cgroup)
			for name, text := range tt.files {
				write(filepath.Join(dir, "fs"), name, text)
			}
			f := memoryFiles{meminfo: filepath.Join(dir, "meminfo"), cgroup: filepath.Join(dir, "cgroup"), root: filepath.Join(dir, "fs")}
			if got := availableMemory(f); got != tt.want {
				t.Errorf("available memory %d MiB, want %d MiB", got>>20, tt.want>>20)
			}
		})
	}
	// Nothing readable: 8 GiB, as before.
	dir := t.TempDir()
	if got := availableMemory(memoryFiles{filepath.Join(dir, "x"), filepath.Join(dir, "y"), dir}); got != 8*gib {
		t.Errorf("nothing readable: %d", got)
	}
	if defaultMaxMemory() == 0 {
		t.Error("no default memory limit")
	}
}
