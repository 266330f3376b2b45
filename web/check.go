package web

import (
	"context"
	"fmt"
	"net/http"

	"github.com/vacheck/vacheck/explorer"
)

// CheckAnswer is the answer of POST /api/check: the verdicts of the check
// and a path to each counterexample, Shortest naming the shortest one
// (the one the page loads).
type CheckAnswer struct {
	Spec   string `json:"spec"`
	Status string `json:"status"` // ok, violated, incomplete, error, bounded
	Reason string `json:"reason,omitempty"`
	States int64  `json:"states"`
	// Verdicts are the properties checked, with their verdicts.
	Verdicts   []CheckVerdict `json:"verdicts"`
	Violations []TraceRef     `json:"violations"`
	Shortest   int            `json:"shortest"` // index in Violations, or -1
}

// CheckVerdict is one property's verdict.
type CheckVerdict struct {
	Name    string `json:"name"`
	Verdict string `json:"verdict"`
}

// checkCache runs a model's check once at a time and keeps a finished
// result (a check is deterministic).
type checkCache struct {
	sem chan struct{}
	res *CheckAnswer
}

func (s *Server) handleCheck(r *http.Request) (any, error) {
	m, err := s.model(r)
	if err != nil {
		return nil, err
	}
	select {
	case m.check.sem <- struct{}{}:
		defer func() { <-m.check.sem }()
	case <-r.Context().Done():
		return nil, context.Cause(r.Context())
	}
	if m.check.res != nil {
		return m.check.res, nil
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.CheckTimeout)
	defer cancel()
	stop := context.AfterFunc(r.Context(), cancel) // the client gave up
	defer stop()
	check := s.cfg.Check
	if check == nil {
		check = func(ctx context.Context, m Model) (*explorer.Result, error) {
			return explorer.Check(m.Model, explorer.Config{Properties: m.Claims, Context: ctx})
		}
	}
	res, err := check(ctx, m.Model)
	if err != nil {
		return nil, badRequest("the check: %v", err)
	}
	a := &CheckAnswer{Spec: m.Spec, Status: res.Status.String(), Reason: res.Reason, States: res.States, Verdicts: []CheckVerdict{}, Violations: []TraceRef{}, Shortest: -1}
	for _, p := range res.Properties {
		if p.Verdict != explorer.Skipped {
			a.Verdicts = append(a.Verdicts, CheckVerdict{p.Name, p.Verdict.String()})
		}
	}
	for _, v := range res.Violations {
		ref := TraceRef{Spec: m.Spec, Init: v.Trace.Initial, Property: v.Property, CycleStart: -1, Path: []int{}}
		for _, st := range v.Trace.Steps {
			ref.Path = append(ref.Path, st.ActionIndex)
		}
		if len(v.Trace.Cycle) > 0 {
			ref.CycleStart = len(ref.Path)
			for _, st := range v.Trace.Cycle {
				ref.Path = append(ref.Path, st.ActionIndex)
			}
		}
		if v.Process >= 0 {
			ref.Property += fmt.Sprintf(" (for process %d)", v.Process+1)
		}
		if a.Shortest < 0 || len(ref.Path) < len(a.Violations[a.Shortest].Path) {
			a.Shortest = len(a.Violations)
		}
		a.Violations = append(a.Violations, ref)
	}
	if res.Status == explorer.OK || res.Status == explorer.Violated || res.Status == explorer.Bounded {
		m.check.res = a
	}
	return a, nil
}
