package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The Kubernetes objects of deploy/k8s, mirrored in the fields they use:
// yaml.UnmarshalStrict refuses a field these do not have, so a field name
// mistyped in a manifest fails the test. (k8s.io/api's real types would
// bring k8s.io/apimachinery and a dozen more modules into go.mod for one
// test; these mirror the API's field names, which docs/cluster.md's
// commands submit to a real cluster.)
type (
	k8sMeta struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels,omitempty"`
	}
	k8sJob struct {
		APIVersion string  `json:"apiVersion"`
		Kind       string  `json:"kind"`
		Metadata   k8sMeta `json:"metadata"`
		Spec       struct {
			CompletionMode       string `json:"completionMode,omitempty"`
			Completions          *int   `json:"completions"`
			Parallelism          *int   `json:"parallelism"`
			BackoffLimit         *int   `json:"backoffLimit,omitempty"`
			BackoffLimitPerIndex *int   `json:"backoffLimitPerIndex,omitempty"`
			PodFailurePolicy     *struct {
				Rules []struct {
					Action      string `json:"action"`
					OnExitCodes *struct {
						ContainerName string `json:"containerName"`
						Operator      string `json:"operator"`
						Values        []int  `json:"values"`
					} `json:"onExitCodes,omitempty"`
					OnPodConditions []struct {
						Type   string `json:"type"`
						Status string `json:"status"`
					} `json:"onPodConditions,omitempty"`
				} `json:"rules"`
			} `json:"podFailurePolicy,omitempty"`
			Template struct {
				Metadata k8sMeta `json:"metadata"`
				Spec     struct {
					RestartPolicy string         `json:"restartPolicy"`
					Containers    []k8sContainer `json:"containers"`
					Volumes       []struct {
						Name                  string `json:"name"`
						PersistentVolumeClaim struct {
							ClaimName string `json:"claimName"`
						} `json:"persistentVolumeClaim"`
					} `json:"volumes,omitempty"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	k8sContainer struct {
		Name    string   `json:"name"`
		Image   string   `json:"image"`
		Command []string `json:"command"`
		Args    []string `json:"args"`
		Env     []struct {
			Name      string `json:"name"`
			Value     string `json:"value,omitempty"`
			ValueFrom *struct {
				FieldRef struct {
					FieldPath string `json:"fieldPath"`
				} `json:"fieldRef"`
			} `json:"valueFrom,omitempty"`
		} `json:"env,omitempty"`
		Resources struct {
			Requests map[string]string `json:"requests,omitempty"`
			Limits   map[string]string `json:"limits,omitempty"`
		} `json:"resources"`
		VolumeMounts []struct {
			Name      string `json:"name"`
			MountPath string `json:"mountPath"`
			ReadOnly  bool   `json:"readOnly,omitempty"`
		} `json:"volumeMounts,omitempty"`
	}
	k8sPVC struct {
		APIVersion string  `json:"apiVersion"`
		Kind       string  `json:"kind"`
		Metadata   k8sMeta `json:"metadata"`
		Spec       struct {
			AccessModes []string `json:"accessModes"`
			Resources   struct {
				Requests map[string]string `json:"requests"`
			} `json:"resources"`
		} `json:"spec"`
	}
	// natsValues mirrors the values of the nats/nats chart (1.x) that
	// deploy/k8s/nats-values.yaml sets.
	natsValues struct {
		Config struct {
			Cluster   struct{ Enabled bool } `json:"cluster"`
			JetStream struct{ Enabled bool } `json:"jetstream"`
			Nats      struct {
				Port int `json:"port"`
			} `json:"nats"`
			Merge map[string]any `json:"merge"`
		} `json:"config"`
		Container struct {
			Merge map[string]any `json:"merge"`
		} `json:"container"`
		NatsBox struct{ Enabled bool } `json:"natsBox"`
	}
)

const deployDir = "../deploy"

func readStrict(t *testing.T, name string, into any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(deployDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// asCLI makes the test binary run as vacheck (TestMain).
const asCLI = "VACHECK_TEST_AS_CLI"

// checkHelp is what `vacheck check --help` and `vacheck check SPEC
// --help` say, for each spec of specs: every flag of check and the
// parameters of those specs.
func checkHelp(t *testing.T, specs ...string) string {
	t.Helper()
	var all strings.Builder
	for _, args := range append([][]string{{"check", "--help"}}, func() (out [][]string) {
		for _, s := range specs {
			if s != "" {
				out = append(out, []string{"check", s, "--help"})
			}
		}
		return out
	}()...) {
		code, out, stderr := vacheck(args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d, %s", args, code, stderr)
		}
		all.WriteString(out)
	}
	return all.String()
}

// specOf returns the spec that the args of a check name (after "check"),
// or "" (none, or a shell variable's).
func specOf(args []string) string {
	if i := slices.Index(args, "check"); i >= 0 && i+1 < len(args) && !strings.ContainsAny(args[i+1], `"$`) {
		return args[i+1]
	}
	return ""
}

// flagsOf returns the flags (--name) among args.
func flagsOf(args []string) []string {
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, "--") {
			name, _, _ := strings.Cut(a, "=")
			out = append(out, name)
		}
	}
	return out
}

// distributedFlags are the flags of the distributed search (issue 32, point
// 2), which another part of vacheck provides.
var distributedFlags = []string{"--cluster", "--ranks", "--rank"}

// TestDeployManifests parses deploy/k8s strictly and checks that the Jobs
// are what docs/cluster.md says and that their args name real flags.
func TestDeployManifests(t *testing.T) {
	t.Parallel()
	var pvc k8sPVC
	readStrict(t, "k8s/pvc.yaml", &pvc)
	if pvc.Kind != "PersistentVolumeClaim" || !slices.Contains(pvc.Spec.AccessModes, "ReadWriteMany") {
		t.Errorf("pvc.yaml: %s %v, want a ReadWriteMany PersistentVolumeClaim", pvc.Kind, pvc.Spec.AccessModes)
	}
	var nats natsValues
	readStrict(t, "k8s/nats-values.yaml", &nats)
	if nats.Config.Nats.Port != 4222 || nats.Config.JetStream.Enabled {
		t.Errorf("nats-values.yaml: port %d, jetstream %v; want 4222, off", nats.Config.Nats.Port, nats.Config.JetStream.Enabled)
	}
	for _, name := range []string{"shards-job.yaml", "merge-job.yaml", "ranks-job.yaml"} {
		t.Run(name, func(t *testing.T) {
			var job k8sJob
			readStrict(t, "k8s/"+name, &job)
			if job.APIVersion != "batch/v1" || job.Kind != "Job" || len(job.Spec.Template.Spec.Containers) != 1 {
				t.Fatalf("%s %s with %d containers, want one batch/v1 Job container", job.APIVersion, job.Kind, len(job.Spec.Template.Spec.Containers))
			}
			c := job.Spec.Template.Spec.Containers[0]
			if !slices.Equal(c.Command, []string{"/vacheck"}) {
				t.Errorf("command %v, want the image's /vacheck", c.Command)
			}
			if job.Spec.Template.Spec.RestartPolicy != "Never" {
				t.Errorf("restartPolicy %q: a part that ended with a verdict must not run again", job.Spec.Template.Spec.RestartPolicy)
			}
			if name == "merge-job.yaml" {
				if c.Args[0] != "merge" {
					t.Errorf("args %v, want merge", c.Args)
				}
				return
			}
			if job.Spec.CompletionMode != "Indexed" || job.Spec.Completions == nil || job.Spec.Parallelism == nil {
				t.Fatalf("completionMode %q: want an Indexed Job with completions and parallelism", job.Spec.CompletionMode)
			}
			K := *job.Spec.Completions
			args := strings.Join(c.Args, " ")
			help := checkHelp(t, specOf(c.Args))
			switch name {
			case "shards-job.yaml":
				if !strings.Contains(args, "--shard env/"+itoa(K)) || !strings.Contains(args, "--cert /out/shard-$(JOB_COMPLETION_INDEX).json") {
					t.Errorf("args %q: want --shard env/%d (K = completions) and --cert /out/shard-$(JOB_COMPLETION_INDEX).json", args, K)
				}
			case "ranks-job.yaml":
				if !strings.Contains(args, "--ranks "+itoa(K)+" --rank env") || *job.Spec.Parallelism != K {
					t.Errorf("args %q, parallelism %d: want --ranks %d --rank env, all K at once", args, *job.Spec.Parallelism, K)
				}
			}
			for _, f := range flagsOf(c.Args) {
				if slices.Contains(distributedFlags, f) && !strings.Contains(help, f+" ") {
					t.Skipf("%s: this build has no distributed search (%s)", name, f)
				}
				if !strings.Contains(help, f+" ") && !strings.Contains(help, f+"=") {
					t.Errorf("%s: check has no flag %s", name, f)
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestShardsJobRuns runs the args of shards-job.yaml, as each of its pods
// would (the index from JOB_COMPLETION_INDEX, the volume a directory),
// cut short by --max-states, and merge-job.yaml's merge of them: the real
// command line parses, and the parts merge (incomplete: exit 3). Not
// parallel: it sets the environment (t.Setenv).
func TestShardsJobRuns(t *testing.T) {
	var shards, merge k8sJob
	readStrict(t, "k8s/shards-job.yaml", &shards)
	readStrict(t, "k8s/merge-job.yaml", &merge)
	out := t.TempDir()
	K := *shards.Spec.Completions
	for k := range K {
		t.Setenv("JOB_COMPLETION_INDEX", itoa(k))
		var args []string
		for _, a := range shards.Spec.Template.Spec.Containers[0].Args {
			a = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", itoa(k))
			args = append(args, strings.Replace(a, "/out/", out+"/", 1))
		}
		// --n 4 for --n 8: the same command line, 24 initial states for
		// 40,320, so that the parts take milliseconds.
		if i := slices.Index(args, "--n"); i >= 0 {
			args[i+1] = "4"
		}
		args = append(args, "--max-states", "100")
		if code, _, stderr := vacheck(args...); code != exitIncomplete {
			t.Fatalf("part %d: exit %d, want 3 (--max-states): %s", k, code, stderr)
		}
	}
	var margs []string
	for _, a := range merge.Spec.Template.Spec.Containers[0].Args {
		margs = append(margs, strings.Replace(a, "/out/", out+"/", 1))
	}
	if code, _, stderr := vacheck(margs...); code != exitIncomplete {
		t.Errorf("merge: exit %d, want 3: %s", code, stderr)
	}
}

// vacheckLines are the lines of a script that run vacheck check.
var vacheckLines = regexp.MustCompile(`(?m)^\s*(?:exec )?"\$(?:VACHECK|0)" check .*(?:\n.*\\$|\n\s+--.*)*`)

// TestSlurmAndLocalScripts: the scripts are valid shell, the flags they
// give vacheck check are real, and deploy/local.sh runs a check in 3 parts
// and merges them.
func TestSlurmAndLocalScripts(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, name := range []string{"slurm/shards.sbatch", "slurm/merge.sbatch", "slurm/ranks.sbatch", "local.sh"} {
		path := filepath.Join(deployDir, name)
		if out, err := exec.Command(bash, "-n", path).CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", name, err, out)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range vacheckLines.FindAllString(string(data), -1) {
			help := checkHelp(t, specOf(strings.Fields(line)))
			for _, f := range flagsOf(strings.Fields(line)) {
				if slices.Contains(distributedFlags, f) && !strings.Contains(help, f+" ") {
					continue // the distributed search: not in this build
				}
				if !strings.Contains(help, f+" ") {
					t.Errorf("%s: check has no flag %s", name, f)
				}
			}
		}
	}
	if testing.Short() {
		return
	}
	// vacheck is this test binary (TestMain), through a wrapper script.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "vacheck")
	script := "#!/bin/sh\n" + asCLI + "=1 exec '" + self + "' -test.run=^$ -- \"$@\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command("sh", filepath.Join(deployDir, "local.sh"), "3", out, "chang-roberts", "--n", "3", "--ids", "all")
	cmd.Env = append(os.Environ(), "VACHECK="+bin, "JOBS=2")
	got, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(got), "merge: 3 parts of 6 initial states") {
		t.Errorf("local.sh: %v\n%s", err, got)
	}
}
