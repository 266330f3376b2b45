package simulate

import (
	"fmt"
	"math/rand/v2"

	"github.com/vacheck/vacheck/explorer"
)

// Run is one run of a simulation: where it started, the transitions it
// took, and how it ended.
type Run struct {
	// Initial is the initial state drawn.
	Initial []byte
	// Actions are the action indices of the steps, in order (the i-th
	// transition a worker's Expand emits has action index i).
	Actions []int
	// End says how the run ended: "terminal" (no transition enabled),
	// "violation" (an invariant or assertion checked fails, in the last
	// state), "steps" (Config.MaxSteps taken) or "bound" (the last state
	// lies outside the model's constraint).
	End string
}

// Walk does run k of a simulation of m with cfg, exactly as Simulate does
// it: the same initial state drawn, the same transitions chosen, the same
// properties checked (cfg.Properties, and every assertion) with the same
// steps cap. Only cfg's Seed, MaxSteps and Properties matter; Runs need not
// be set. A run that makes the model fail returns the model's error. The
// interactive explorer's random run is Walk, so that it is run k of
// `vacheck simulate --seed S`.
func Walk(m explorer.Model, cfg Config, k int) (Run, error) {
	if k < 0 {
		return Run{}, configError("", fmt.Sprint(k), "run %d: runs are numbered from 0", k)
	}
	cfg.Runs, cfg.Workers, cfg.Metrics = 1, 1, nil
	var live []explorer.LiveProperty
	if lm, ok := m.(explorer.LiveModel); ok {
		live = lm.Liveness()
	}
	cfg, err := cfg.validate(m.Properties(), live)
	if err != nil {
		return Run{}, err
	}
	s := &sim{cfg: cfg, m: m}
	if err := s.setup(); err != nil {
		return Run{}, err
	}
	r := s.newRunner()
	if err := r.do(k); err != nil {
		return Run{}, err
	}
	if f := r.failure; f != nil {
		return Run{}, fmt.Errorf("simulate: run %d failed after %d steps: %w", k, len(f.acts), f.err)
	}
	run := Run{Initial: r.init, Actions: make([]int, len(r.acts))}
	for i, a := range r.acts {
		run.Actions[i] = int(a)
	}
	switch e := r.ends; {
	case e.Violation > 0:
		run.End = "violation"
	case e.ValidEnd+e.Deadlock > 0:
		run.End = "terminal"
	case e.Cut > 0:
		run.End = "bound"
	default:
		run.End = "steps"
	}
	return run, nil
}

// InitialOf returns the initial state run k of a simulation of m with seed
// draws, as Simulate and Walk draw it, without taking a step.
func InitialOf(m explorer.Model, seed uint64, k int) ([]byte, error) {
	if k < 0 {
		return nil, configError("", fmt.Sprint(k), "run %d: runs are numbered from 0", k)
	}
	s := &sim{cfg: Config{Seed: seed, Runs: 1, Workers: 1, MaxSteps: DefaultMaxSteps}, m: m}
	if err := s.samplerFor(); err != nil {
		return nil, err
	}
	r := &runner{s: s, src: rand.NewChaCha8([32]byte{})}
	r.rng = rand.New(r.src)
	r.seed(k)
	st, err := r.sample()
	if err != nil {
		return nil, fmt.Errorf("simulate: drawing the initial state of run %d: %w", k, err)
	}
	return st, nil
}
