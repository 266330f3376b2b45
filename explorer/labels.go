package explorer

import (
	"fmt"
	"strings"
)

// StepError says why a path given by labels (FollowLabels) cannot be
// followed: its step Index (from 0) is Label, which no transition enabled
// there is; Enabled lists the labels of those that are.
type StepError struct {
	Index   int
	Label   string
	Enabled []string
}

func (e *StepError) Error() string {
	enabled := "none (a terminal state)"
	if len(e.Enabled) > 0 {
		enabled = strings.Join(e.Enabled, ", ")
	}
	return fmt.Sprintf("step %d, %s, is not enabled; the transitions enabled there are %s", e.Index+1, e.Label, enabled)
}

// FollowLabels follows from the state init of m (a Describer) the path
// whose steps are labels, action names as traces print them
// (receive(3)_{3,1}), by matching each among the transitions enabled
// where it is taken, and returns their action indices and the state the
// path ends in. A label that no
// enabled transition has is a *StepError naming the step. A label that
// two transitions share (a model whose labels do not tell its
// transitions apart) takes the first.
func FollowLabels(m Model, init []byte, labels []string) (acts []uint32, end []byte, err error) {
	d, ok := m.(Describer)
	if !ok {
		return nil, nil, fmt.Errorf("the model does not name its transitions (explorer.Describer): a path of labels cannot be followed")
	}
	w := m.NewWorker()
	cur := append([]byte(nil), init...)
	acts = make([]uint32, 0, len(labels))
	for k, l := range labels {
		var next []byte
		var enabled []string
		idx, found := 0, -1
		var lerr error
		if _, err := Successors(w, cur, func(_ Transition, succ []byte) {
			a := idx
			idx++
			if found >= 0 || lerr != nil {
				return
			}
			got, err := d.Label(cur, a)
			if err != nil {
				lerr = err
				return
			}
			if got == l {
				found, next = a, append([]byte(nil), succ...)
				return
			}
			enabled = append(enabled, got)
		}); err != nil {
			return acts, nil, fmt.Errorf("step %d, %s: %w", k+1, l, err)
		}
		if lerr != nil {
			return acts, nil, fmt.Errorf("step %d, %s: %w", k+1, l, lerr)
		}
		if found < 0 {
			return acts, nil, &StepError{Index: k, Label: l, Enabled: enabled}
		}
		acts = append(acts, uint32(found))
		cur = next
	}
	return acts, cur, nil
}
