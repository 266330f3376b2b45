package shard

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/explorer"
)

// The environment variables a part's index is read from with
// --shard env/K, in this order.
const (
	// EnvKubernetes is set by a Kubernetes Indexed Job: 0 to
	// completions-1.
	EnvKubernetes = "JOB_COMPLETION_INDEX"
	// EnvSlurm is set by a Slurm job array: the task's index in the
	// array, which must be submitted as --array=0-(K-1).
	EnvSlurm = "SLURM_ARRAY_TASK_ID"
	// envSlurmMin is the first index of the Slurm array.
	envSlurmMin = "SLURM_ARRAY_TASK_MIN"
)

// MaxParts bounds K: more parts than that are a typing mistake, not a
// cluster.
const MaxParts = 1 << 16

// Parse reads the value of the flag named flag: "k/K" (the k-th of K
// parts, k from 0 to K-1) or "env/K" (k from the environment, read with
// getenv: JOB_COMPLETION_INDEX, else SLURM_ARRAY_TASK_ID). A Slurm array
// must start at 0 (--array=0-(K-1)): one that starts at 1 is refused, as
// it would leave part 0 out. The error names the flag, the value and what
// is allowed.
func Parse(flag, value string, getenv func(string) string) (explorer.Shard, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("--%s %q: "+format, append([]any{flag, value}, args...)...)
	}
	const allowed = "allowed: k/K, the k-th of K parts with k from 0 to K-1 (e.g. 0/4), or env/K to take k from " + EnvKubernetes + " (a Kubernetes Indexed Job) or " + EnvSlurm + " (a Slurm array submitted as --array=0-(K-1))"
	ks, counts, ok := strings.Cut(strings.TrimSpace(value), "/")
	if !ok {
		return explorer.Shard{}, bad("%s", allowed)
	}
	count, err := strconv.Atoi(strings.TrimSpace(counts))
	if err != nil || count < 1 || count > MaxParts {
		return explorer.Shard{}, bad("K must be a whole number from 1 to %d; %s", MaxParts, allowed)
	}
	ks = strings.TrimSpace(ks)
	from := ""
	if ks == "env" {
		switch {
		case getenv(EnvKubernetes) != "":
			from, ks = EnvKubernetes, getenv(EnvKubernetes)
		case getenv(EnvSlurm) != "":
			from, ks = EnvSlurm, getenv(EnvSlurm)
			if m := getenv(envSlurmMin); m != "" && m != "0" {
				return explorer.Shard{}, bad("the Slurm array starts at %s=%s, so part 0 would be left out: submit it as --array=0-%d", envSlurmMin, m, count-1)
			}
		default:
			return explorer.Shard{}, bad("neither %s nor %s is set: run it as a Kubernetes Indexed Job or a Slurm array, or give k/K", EnvKubernetes, EnvSlurm)
		}
	}
	index, err := strconv.Atoi(strings.TrimSpace(ks))
	if err != nil || index < 0 || index >= count {
		if from != "" {
			return explorer.Shard{}, bad("%s=%q: the part must be a whole number from 0 to %d (a Slurm array is submitted as --array=0-%d; an Indexed Job has completions %d)", from, ks, count-1, count-1, count)
		}
		return explorer.Shard{}, bad("the part k must be a whole number from 0 to %d; %s", count-1, allowed)
	}
	return explorer.Shard{Index: index, Count: count}, nil
}
