package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/tracefile"
)

// TraceRef is a path the page can load: a counterexample of a check, or a
// trace loaded from the JSON of `check --format json`.
type TraceRef struct {
	Spec string `json:"spec"`
	Init int    `json:"init"`
	Path []int  `json:"path"`
	// Property is the property the trace violates.
	Property string `json:"property,omitempty"`
	// CycleStart, for a lasso, is the step where its cycle starts (the
	// path ends where the cycle started); -1 otherwise.
	CycleStart int `json:"cycle_start"`
}

// loadTrace finds the model, initial state and action indices of a trace
// in a trace file (package tracefile: the file of `check --save-trace`,
// or the JSON of `check --format json`): the trace numbered which (from
// 0, violations then witnesses; "" for the first), of the spec and
// parameters the file names, or of the default model for a lone
// violation.
func (s *Server) loadTrace(ctx context.Context, data []byte, which string) (*TraceRef, error) {
	doc, err := tracefile.Parse(data)
	if err != nil {
		return nil, badRequest("not the JSON of 'vacheck check --format json' or --save-trace: %v", errors.Unwrap(err))
	}
	all := doc.All()
	if len(all) == 0 {
		return nil, badRequest("no counterexample in the JSON: it has no violations (was the check's verdict ok?)")
	}
	k := 0
	if which != "" {
		if _, err := fmt.Sscan(which, &k); err != nil || k < 0 || k >= len(all) || fmt.Sprint(k) != which {
			return nil, badRequest("violation=%q: the trace has violations 0 to %d", which, len(all)-1)
		}
	}
	v := all[k]
	m := s.models[0]
	if doc.Spec != "" {
		var found *served
		var have []string
		for _, o := range s.models {
			have = append(have, o.Spec+" "+o.ParamLine())
			if o.Spec == doc.Spec && tracefile.SameParams(o.Params, doc.Params) {
				found = o
			}
		}
		if found == nil {
			return nil, badRequest("the trace is of %s %s; this explorer serves %s: run vacheck explore %s %s --trace FILE",
				doc.Spec, paramLine(doc.Params), strings.Join(have, " and "), doc.Spec, paramLine(doc.Params))
		}
		m = found
	}
	init, err := m.findInitial(ctx, v.Initial)
	if err != nil {
		return nil, err
	}
	labels, cycleStart := v.Labels()
	ref := &TraceRef{Spec: m.Spec, Init: init, Property: v.Property, CycleStart: cycleStart}
	if len(labels) > maxPath {
		return nil, badRequest("the trace has %d steps, more than %d", len(labels), maxPath)
	}
	if ref.Path, err = m.replayLabels(ctx, origin{index: init}, labels); err != nil {
		return nil, err
	}
	if ref.Path == nil {
		ref.Path = []int{}
	}
	return ref, nil
}

func paramLine(p map[string]any) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("--%s %v", k, p[k]))
	}
	return strings.Join(parts, " ")
}

// findInitial returns the index of the initial state whose variables are
// vars, streaming the initial states within ctx's time.
func (m *served) findInitial(ctx context.Context, vars map[string]any) (int, error) {
	want := tracefile.Normal(vars)
	k, found := 0, -1
	var ferr error
	err := explorer.EachInitial(m.Model.Model, func(st []byte) bool {
		if k&255 == 0 && ctx.Err() != nil {
			ferr = fmt.Errorf("looking for the trace's initial state: stopped after %d initial states: %w", k, context.Cause(ctx))
			return false
		}
		desc, err := m.describer.Describe(st)
		if err != nil {
			ferr = err
			return false
		}
		got := map[string]any{}
		for _, v := range desc {
			got[v.Name] = v.Value
		}
		if reflect.DeepEqual(tracefile.Normal(got), want) {
			found = k
			return false
		}
		k++
		return true
	})
	switch {
	case err != nil:
		return 0, err
	case ferr != nil:
		return 0, ferr
	case found < 0:
		return 0, badRequest("the trace's initial state is not one of the %d initial states of %s %s", k, m.Spec, m.ParamLine())
	}
	return found, nil
}

func (s *Server) handleTraceGiven(*http.Request) (any, error) {
	if s.trace == nil {
		return nil, notFound("no trace was named on the command line (vacheck explore SPEC --trace FILE)")
	}
	return s.trace, nil
}

func (s *Server) handleTraceLoad(r *http.Request) (any, error) {
	data, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	return s.loadTrace(ctx, data, r.URL.Query().Get("violation"))
}
