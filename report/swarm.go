package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/vacheck/vacheck/explorer"
)

// SwarmRun is one swarm: the spec, its parameters and the explorer's
// result, with how its traces read (as in Run).
type SwarmRun struct {
	Spec   string
	Bug    string
	Params map[string]any
	Result *explorer.SwarmResult
	// Show, Involved and TraceDiff are Run's.
	Show      string
	Involved  bool
	TraceDiff bool
	// NotChecked names the claims left out (liveness: a bitstate search
	// checks safety properties only), and NotCheckedWhy says why.
	NotChecked    []string
	NotCheckedWhy string
	// Rerun is the swarm's spec and parameters as a check's command line
	// (Run.Rerun), which its counterexamples' re-run commands start from.
	Rerun []string
}

// Run is the Run a swarm's traces and verdicts are written with.
func (sr SwarmRun) Run() Run { return sr.run() }

// run is Run.
func (sr SwarmRun) run() Run {
	return Run{Spec: sr.Spec, Params: sr.Params, Show: sr.Show, Involved: sr.Involved, TraceDiff: sr.TraceDiff,
		NotChecked: sr.NotChecked, NotCheckedWhy: sr.NotCheckedWhy, Rerun: sr.Rerun}
}

// JobLine describes a job of a swarm of jobs jobs that ended: its verdict
// and figures.
func JobLine(job explorer.SwarmJob, jobs int) string {
	r := job.Result
	if job.Err != nil {
		return fmt.Sprintf("job %d/%d: error: %v", job.Index, jobs, job.Err)
	}
	return fmt.Sprintf("job %d/%d (seed %#x): %s, %s, depth %d, %s", job.Index, jobs, job.Seed, jobOutcome(r), Count(r.States, "state"), r.Depth, formatSeconds(r.Elapsed.Seconds()))
}

// jobOutcome says what a job found: the properties it violated, with the
// length of each counterexample, or why it is incomplete.
func jobOutcome(r *explorer.Result) string {
	switch r.Status {
	case explorer.Violated:
		var vs []string
		for _, v := range r.Violations {
			vs = append(vs, fmt.Sprintf("%s (%s)", v.Property, Count(len(v.Trace.Steps)+len(v.Trace.Cycle), "step")))
		}
		return "violated " + strings.Join(vs, ", ")
	case explorer.Failed:
		return "model error"
	}
	switch r.Limit {
	case explorer.BitstateLimit:
		return "no violation"
	case explorer.Interrupted:
		return "stopped, no violation"
	}
	return "incomplete (" + r.Limit.String() + "), no violation"
}

// SwarmText writes a swarm for people: what it ran, a line per job, the
// verdicts, the union of the jobs, and the shortest counterexample of each
// property violated.
func SwarmText(w io.Writer, sr SwarmRun) error {
	r := sr.Result
	run := sr.run()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", sr.Spec, Params(sr.Params))
	if sr.Bug != "" {
		fmt.Fprintf(&b, "broken on purpose: %s\n", sr.Bug)
	}
	fmt.Fprintf(&b, "\nswarm of %d depth-first searches, %d at a time (seed %d), each with its own order of successors and its own %d hash functions into a bitstate table of %s (%s in all)\n\n",
		len(r.Jobs), r.Workers, r.Seed, r.Hashes, FormatBytes(r.BytesPerJob), FormatBytes(r.Memory))
	rows := [][]string{{"job", "seed", "states", "transitions", "depth", "fill", "hash factor", "omitted (est.)", "time", "result"}}
	for _, job := range r.Jobs {
		row := []string{fmt.Sprint(job.Index), fmt.Sprintf("%#016x", job.Seed)}
		switch {
		case !job.Started:
			row = append(row, "", "", "", "", "", "", "", "not started")
		case job.Err != nil:
			row = append(row, "", "", "", "", "", "", "", "error: "+job.Err.Error())
		default:
			jr := job.Result
			row = append(row, Group(jr.States), Group(jr.Transitions), fmt.Sprint(jr.Depth))
			if bs := jr.Bitstate; bs != nil {
				row = append(row, fmt.Sprintf("%.2g%%", 100*bs.Fill), hashFactor(bs.HashFactor), fmt.Sprintf("%.3g", bs.ExpectedOmitted))
			} else {
				row = append(row, "", "", "")
			}
			row = append(row, formatSeconds(jr.Elapsed.Seconds()), jobOutcome(jr))
		}
		rows = append(rows, row)
	}
	writeTable(&b, "rlrrrrrrrl", rows)
	b.WriteString("\n")
	width, vwidth := 0, 8
	for _, p := range r.Properties {
		width = max(width, len(p.Name))
		vwidth = max(vwidth, len(run.VerdictOf(p)))
	}
	for _, p := range r.Properties {
		if verdict := run.VerdictOf(p); verdict != "" {
			fmt.Fprintf(&b, "  %-*s  %-*s  %s\n", width, p.Name, vwidth, verdict, p.Doc)
		}
	}
	fmt.Fprintf(&b, "\nunion of the jobs: about %s distinct states (HyperLogLog estimate, about 1%% error); %s stored by the jobs in all, %s transitions, depth %d\n",
		Group(int64(r.States+0.5)), Group(r.Stored), Group(r.Transitions), r.Depth)
	if r.FirstFoundJob > 0 {
		fmt.Fprintf(&b, "first violation found after %s (job %d); ", formatSeconds(r.FirstFound.Seconds()), r.FirstFoundJob)
	}
	fmt.Fprintf(&b, "%s in all\n", formatSeconds(r.Elapsed.Seconds()))
	if r.TimedOut || r.Interrupted {
		b.WriteString("the swarm was stopped: the jobs it stopped, and which jobs ran, depend on timing (a job that ends by itself depends on its seed only)\n")
	}
	if r.Coverage != nil {
		b.WriteString("\n" + strings.Replace(CoverageText(r.Coverage), "coverage:", "coverage, summed over the jobs:", 1))
	}
	for _, v := range r.Violations {
		b.WriteString("\n")
		if v.Property == "deadlock-freedom" {
			fmt.Fprintf(&b, "DEADLOCK: a terminal state that is not a valid end state, after %s", Count(len(v.Trace.Steps), "step"))
		} else {
			fmt.Fprintf(&b, "VIOLATED %s", v.Property)
		}
		fmt.Fprintf(&b, " (the shortest found, by job %d; %d of %d jobs found a counterexample)\n", v.Job, v.Found, len(r.Jobs))
		writeTrace(&b, v.Trace, explorer.DFS, run)
	}
	b.WriteString("\n")
	switch r.Status {
	case explorer.Violated:
		b.WriteString("result: VIOLATED\n")
	case explorer.Failed:
		fmt.Fprintf(&b, "result: ERROR in the model: %s\n", r.Reason)
	default:
		fmt.Fprintf(&b, "result: INCOMPLETE, %s; no violation among about %s distinct states explored\n", r.Reason, Group(int64(r.States+0.5)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type jsonSwarmJob struct {
	Job       int           `json:"job"`
	Seed      uint64        `json:"seed"`
	OrderSeed uint64        `json:"order_seed"`
	HashSeed  uint64        `json:"hash_seed"`
	Started   bool          `json:"started"`
	Start     float64       `json:"start_seconds"`
	Status    string        `json:"status,omitempty"`
	Reason    string        `json:"reason,omitempty"`
	Error     string        `json:"error,omitempty"`
	States    int64         `json:"states"`
	Trans     int64         `json:"transitions"`
	Depth     int           `json:"depth"`
	Elapsed   float64       `json:"elapsed_seconds"`
	Violated  []string      `json:"violated"`
	Bitstate  *JSONBitstate `json:"bitstate,omitempty"`
}

type jsonSwarmViolation struct {
	jsonViolation
	Job     int `json:"job"`
	FoundBy int `json:"found_by"`
}

type jsonSwarm struct {
	Spec       string               `json:"spec"`
	Bug        string               `json:"bug,omitempty"`
	Params     map[string]any       `json:"params"`
	Status     string               `json:"status"`
	Reason     string               `json:"reason,omitempty"`
	Properties []jsonProperty       `json:"properties"`
	NotChecked []string             `json:"not_checked,omitempty"`
	Violations []jsonSwarmViolation `json:"violations"`
	// UnionStates is the HyperLogLog estimate of the distinct states the
	// jobs stored between them; StoredStates sums the jobs' states.
	UnionStates  float64        `json:"union_states_estimate"`
	StoredStates int64          `json:"stored_states"`
	Transitions  int64          `json:"transitions"`
	Depth        int            `json:"depth"`
	Omitted      float64        `json:"expected_omitted"`
	Elapsed      float64        `json:"elapsed_seconds"`
	FirstFound   *float64       `json:"first_violation_seconds,omitempty"`
	FirstJob     int            `json:"first_violation_job,omitempty"`
	Jobs         []jsonSwarmJob `json:"jobs"`
	Workers      int            `json:"workers"`
	Memory       uint64         `json:"memory_bytes"`
	PerJob       uint64         `json:"bytes_per_job"`
	Hashes       int            `json:"hashes"`
	Seed         uint64         `json:"seed"`
	TimedOut     bool           `json:"timed_out,omitempty"`
	Interrupted  bool           `json:"interrupted,omitempty"`
	Coverage     *JSONCoverage  `json:"coverage,omitempty"`
}

// SwarmJSON writes a swarm as one JSON object.
func SwarmJSON(w io.Writer, sr SwarmRun) error {
	r := sr.Result
	run := sr.run()
	out := jsonSwarm{
		Spec: sr.Spec, Bug: sr.Bug, Params: sr.Params, Status: r.Status.String(), Reason: r.Reason,
		Properties: []jsonProperty{}, Violations: []jsonSwarmViolation{}, Jobs: []jsonSwarmJob{},
		UnionStates: r.States, StoredStates: r.Stored, Transitions: r.Transitions, Depth: r.Depth, Omitted: r.ExpectedOmitted,
		Elapsed: r.Elapsed.Seconds(), FirstJob: r.FirstFoundJob, Workers: r.Workers, Memory: r.Memory, PerJob: r.BytesPerJob,
		Hashes: r.Hashes, Seed: r.Seed, TimedOut: r.TimedOut, Interrupted: r.Interrupted, Coverage: CoverageJSON(r.Coverage),
	}
	if out.Params == nil {
		out.Params = map[string]any{}
	}
	if r.FirstFoundJob > 0 {
		s := r.FirstFound.Seconds()
		out.FirstFound = &s
	}
	for _, p := range r.Properties {
		if run.notChecked(p) {
			out.Properties = append(out.Properties, jsonProperty{Name: p.Name, Kind: p.Kind.String(), Status: NotCheckedStatus, Reason: run.NotCheckedWhy})
			out.NotChecked = append(out.NotChecked, p.Name)
			continue
		}
		if p.Verdict != explorer.Skipped {
			out.Properties = append(out.Properties, jsonProperty{Name: p.Name, Kind: p.Kind.String(), Status: p.Verdict.String()})
		}
	}
	for _, v := range r.Violations {
		jv := traceJSON(v.Property, v.Kind.String(), v.Trace, sr.TraceDiff)
		jv.Process = v.Process + 1
		jv.Rerun = run.rerun(v.Trace)
		out.Violations = append(out.Violations, jsonSwarmViolation{jsonViolation: jv, Job: v.Job, FoundBy: v.Found})
	}
	for _, job := range r.Jobs {
		j := jsonSwarmJob{Job: job.Index, Seed: job.Seed, OrderSeed: job.OrderSeed, HashSeed: job.HashSeed, Started: job.Started, Start: job.Start.Seconds(), Violated: []string{}}
		if job.Err != nil {
			j.Error = job.Err.Error()
		}
		if jr := job.Result; jr != nil {
			j.Status, j.Reason, j.States, j.Trans, j.Depth, j.Elapsed = jr.Status.String(), jr.Reason, jr.States, jr.Transitions, jr.Depth, jr.Elapsed.Seconds()
			j.Bitstate = BitstateJSON(jr.Bitstate)
			for _, v := range jr.Violations {
				j.Violated = append(j.Violated, v.Property)
			}
		}
		out.Jobs = append(out.Jobs, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
