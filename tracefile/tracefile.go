// Package tracefile is the file format of saved traces: what `vacheck check
// --save-trace FILE` (and simulate and swarm) write, what `vacheck replay
// FILE` replays, and what `vacheck explore --trace FILE` loads.
//
// A file is one JSON object in the shape of `check --format json`, so that
// the JSON a check prints is a trace file too:
//
//	{
//	  "format": "vacheck-trace 1",
//	  "spec": "lelann-broken",
//	  "params": {"n": 3, "ids": "all", ...},      the canonical parameters
//	  "given": {"n": "3", "ids": "all"},          as the user gave them
//	  "build": "vacheck v0.37 ...",
//	  "violations": [ TRACE, ... ],
//	  "witnesses": [ TRACE, ... ]
//	}
//
// and each TRACE is
//
//	{
//	  "property": "uniqueness", "kind": "invariant",
//	  "initial_params": {"ids": "2,1,3", "initiators": "1,2"},
//	  "rerun": "vacheck check lelann-broken --n 3 --ids 2,1,3 --initiators 1,2",
//	  "initial": {"p1.u": 2, ...},                the initial state
//	  "trace": [{"action": "start_1"}, {"action": "receive(2)_{1,2}"}, ...],
//	  "cycle": [...]                              a lasso's cycle, if any
//	}
//
// Steps are identified by their labels, as the trace prints them, not by
// action indices, so that a file stays readable and a replay matches each
// step among the transitions enabled where it is taken.
package tracefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// Format is the value of a saved file's "format" field.
const Format = "vacheck-trace 1"

// MaxSize bounds the size of a trace file that Read accepts.
const MaxSize = 64 << 20

// File is a saved trace file.
type File struct {
	Format string `json:"format,omitempty"`
	Spec   string `json:"spec"`
	// Params are the canonical parameters of the run (specs.Params.
	// Canonical), and Given the spec parameters as the user gave them.
	Params map[string]any    `json:"params"`
	Given  map[string]string `json:"given,omitempty"`
	// Build is the version of the vacheck that wrote the file.
	Build      string  `json:"build,omitempty"`
	Violations []Trace `json:"violations"`
	Witnesses  []Trace `json:"witnesses,omitempty"`
}

// Trace is one saved counterexample or witness.
type Trace struct {
	Property string `json:"property,omitempty"`
	Kind     string `json:"kind,omitempty"`
	// Of says what a witness is of, for a metric's: "messages: min 5".
	Of string `json:"of,omitempty"`
	// Process is the process (1-based) a per-process property failed for,
	// or 0.
	Process int `json:"process,omitempty"`
	// InitialParams are the parameters that select exactly the initial
	// state (explorer.Trace.InitialParams); nil when it has no name.
	InitialParams map[string]string `json:"initial_params,omitempty"`
	Rerun         string            `json:"rerun,omitempty"`
	// Initial is the initial state, variable by variable.
	Initial map[string]any `json:"initial"`
	Steps   []Step         `json:"trace"`
	Cycle   []Step         `json:"cycle,omitempty"`
}

// Step is a step of a trace: the action's label, as traces print it.
type Step struct {
	Action string `json:"action"`
}

// Labels returns the actions of the trace's steps, then of its cycle, and
// where the cycle starts (-1 for no cycle).
func (t Trace) Labels() (labels []string, cycleStart int) {
	for _, s := range t.Steps {
		labels = append(labels, s.Action)
	}
	cycleStart = -1
	if len(t.Cycle) > 0 {
		cycleStart = len(labels)
		for _, s := range t.Cycle {
			labels = append(labels, s.Action)
		}
	}
	return labels, cycleStart
}

// All returns the violations, then the witnesses.
func (f *File) All() []Trace {
	return append(append([]Trace(nil), f.Violations...), f.Witnesses...)
}

// ErrFormat is wrapped by the errors of Parse and Read for input that is
// not a trace file.
var ErrFormat = errors.New("not a trace file (the JSON of 'vacheck check --save-trace' or '--format json')")

// Parse reads a trace file: a saved one, or the JSON of `check --format
// json`. A lone trace object (a violation cut out of such a file) is read
// as a file of that one violation, without spec.
func Parse(data []byte) (*File, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc struct {
		File
		Trace
	}
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one JSON value", ErrFormat)
	}
	f := doc.File
	if f.Format != "" && f.Format != Format {
		return nil, fmt.Errorf("%w: format %q; this vacheck reads %q", ErrFormat, f.Format, Format)
	}
	if len(f.Violations) == 0 && len(f.Witnesses) == 0 && doc.Trace.Initial != nil {
		f.Violations = []Trace{doc.Trace}
	}
	for k, t := range f.All() {
		if t.Initial == nil {
			return nil, fmt.Errorf("%w: trace %d has no initial state", ErrFormat, k+1)
		}
	}
	return &f, nil
}

// Read reads a trace file from r, at most MaxSize bytes of it.
func Read(r io.Reader) (*File, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("larger than %d MiB", MaxSize>>20)
	}
	return Parse(data)
}

// Write writes f as indented JSON, with its Format set.
func Write(w io.Writer, f *File) error {
	out := *f
	out.Format = Format
	if out.Violations == nil {
		out.Violations = []Trace{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// SameParams reports whether the canonical parameters a and b are equal as
// JSON values (a number read back from JSON equals the int it was).
func SameParams(a, b map[string]any) bool {
	return reflect.DeepEqual(Normal(a), Normal(b))
}

// Normal is v as encoding/json reads it back, numbers as json.Number: the
// form in which values written and values read compare equal.
func Normal(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if dec.Decode(&out) != nil {
		return nil
	}
	return out
}
