package shard_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/shard"
)

func TestParse(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		value string
		env   func(string) string
		want  explorer.Shard
		err   string // a part of the error; "" for none
	}{
		{"0/4", env(), explorer.Shard{Index: 0, Count: 4}, ""},
		{" 3 / 4 ", env(), explorer.Shard{Index: 3, Count: 4}, ""},
		{"env/4", env(shard.EnvKubernetes, "2"), explorer.Shard{Index: 2, Count: 4}, ""},
		{"env/4", env(shard.EnvSlurm, "3", "SLURM_ARRAY_TASK_MIN", "0"), explorer.Shard{Index: 3, Count: 4}, ""},
		{"env/4", env(shard.EnvKubernetes, "1", shard.EnvSlurm, "3"), explorer.Shard{Index: 1, Count: 4}, ""},
		{"env/4", env(shard.EnvSlurm, "4", "SLURM_ARRAY_TASK_MIN", "1"), explorer.Shard{}, "--array=0-3"},
		{"env/4", env(shard.EnvSlurm, "4"), explorer.Shard{}, "SLURM_ARRAY_TASK_ID=\"4\": the part must be a whole number from 0 to 3"},
		{"env/4", env(), explorer.Shard{}, "neither JOB_COMPLETION_INDEX nor SLURM_ARRAY_TASK_ID is set"},
		{"4/4", env(), explorer.Shard{}, "from 0 to 3"},
		{"-1/4", env(), explorer.Shard{}, "from 0 to 3"},
		{"1/0", env(), explorer.Shard{}, "K must be a whole number from 1"},
		{"1", env(), explorer.Shard{}, "allowed: k/K"},
		{"x/2", env(), explorer.Shard{}, "from 0 to 1"},
	} {
		got, err := shard.Parse("shard", c.value, c.env)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.value, err)
		case c.err == "" && got != c.want:
			t.Errorf("%q: %v, want %v", c.value, got, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "--shard \""+c.value+"\"")):
			t.Errorf("%q: error %v, want one naming --shard, the value and %q", c.value, err, c.err)
		}
	}
}

// idModel is a model whose states are (id, step) pairs: from (id, 0) the
// steps count up to 3; the id is its constant part. Initial states hold
// ids 0 .. n-1. With changeAt > 0, the step to changeAt changes the id: a
// model that breaks its declared constant.
type idModel struct {
	ids      []byte
	changeAt byte
}

func (m *idModel) Initial() ([][]byte, error) {
	var out [][]byte
	for _, id := range m.ids {
		out = append(out, []byte{id, 0})
	}
	return out, nil
}
func (m *idModel) Properties() []properties.Info { return nil }
func (m *idModel) NewWorker() explorer.Worker    { return idWorker{m} }

type idWorker struct{ m *idModel }

func (w idWorker) Successors(s []byte, emit func(explorer.Transition, []byte)) (int, error) {
	if s[1] >= 3 {
		return 0, nil
	}
	next := []byte{s[0], s[1] + 1}
	if next[1] == w.m.changeAt {
		next[0] += 100
	}
	emit(explorer.Transition{}, next)
	return 1, nil
}
func (w idWorker) Check([]byte, uint64) (uint64, error) { return 0, nil }
func (w idWorker) Expand(s []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	return explorer.ExpandBySuccessors(w, s, x)
}
func (w idWorker) ValidEnd([]byte) (bool, error) { return true, nil }
func (w idWorker) Constant(s []byte) (uint64, bool, error) {
	return uint64(s[0]), true, nil
}

// runPart checks part sh of searched with a Recorder made from recorded
// (the same model, or a twin whose initial states differ: a mutant split).
func runPart(t *testing.T, recorded, searched explorer.Model, sh explorer.Shard) (*shard.Recorder, *explorer.Result, error) {
	t.Helper()
	rec, err := shard.NewRecorder(recorded, sh)
	if err != nil {
		t.Fatal(err)
	}
	res, err := explorer.Check(searched, explorer.Config{Workers: 2, Shard: sh, OnExpand: rec.Hook})
	if err != nil {
		t.Fatal(err)
	}
	return rec, res, rec.Verify(res)
}

func TestDisjointPartsAddUp(t *testing.T) {
	m := &idModel{ids: []byte{0, 1, 2, 3, 4}}
	var states int64
	for k := range 2 {
		rec, res, err := runPart(t, m, m, explorer.Shard{Index: k, Count: 2})
		if err != nil || res.Status != explorer.OK || rec.Mode() != shard.Disjoint {
			t.Fatalf("part %d: %v %v %v", k, res.Status, rec.Mode(), err)
		}
		states += res.States
	}
	if states != 20 {
		t.Errorf("%d states in all, want 5 ids × 4 steps = 20", states)
	}
}

// TestConstantChangeIsCaught: the mutant whose step changes the id fails
// the part as a model error.
func TestConstantChangeIsCaught(t *testing.T) {
	m := &idModel{ids: []byte{0, 1, 2, 3}, changeAt: 2}
	_, res, _ := runPart(t, m, m, explorer.Shard{Index: 1, Count: 2})
	if res.Status != explorer.Failed || !errors.Is(res.Err, shard.ErrConstant) {
		t.Fatalf("status %v, err %v; want failed with ErrConstant", res.Status, res.Err)
	}
}

// TestSharedConstantsAreNotDisjoint: two initial states with one id make
// the parts overlap: union mode.
func TestSharedConstantsAreNotDisjoint(t *testing.T) {
	m := &idModel{ids: []byte{0, 1, 0}}
	rec, _, err := runPart(t, m, m, explorer.Shard{Index: 0, Count: 2})
	if err != nil || rec.Mode() != shard.Union || !strings.Contains(rec.Why(), "#1 and #3") {
		t.Fatalf("mode %v (%s), err %v; want union, as #1 and #3 share their constant part", rec.Mode(), rec.Why(), err)
	}
}

// TestMutantSplitsAreCaught: a search whose initial states are not its
// part's (one dropped, one added, the parts shifted) is caught.
func TestMutantSplitsAreCaught(t *testing.T) {
	m := &idModel{ids: []byte{0, 1, 2, 3, 4, 5}}
	sh := explorer.Shard{Index: 0, Count: 2} // ids 0, 2, 4
	for name, searched := range map[string]*idModel{
		"dropped":    {ids: []byte{0, 1, 2, 3, 5}},       // part 0 searches 0, 2, 5: 4 dropped, 5 added
		"duplicated": {ids: []byte{0, 1, 2, 3, 4, 5, 1}}, // part 0 searches 0, 2, 4, 1
		"shifted":    {ids: []byte{9, 0, 1, 2, 3, 4, 5}}, // part 0 searches 9, 1, 3, 5
		"lost":       {ids: []byte{0, 1, 2, 3}},          // part 0 searches 0, 2
	} {
		_, res, err := runPart(t, m, searched, sh)
		if !errors.Is(err, shard.ErrSplit) && !errors.Is(res.Err, shard.ErrSplit) {
			t.Errorf("%s: status %v, err %v, verify %v: the mutant split was not caught", name, res.Status, res.Err, err)
		}
	}
}

func TestMergeSetsUnion(t *testing.T) {
	dir := t.TempDir()
	parts := [][]shard.Record{
		{shard.NewRecord(1, 0, 2, false), shard.NewRecord(2, 1, 3, false)},
		{shard.NewRecord(2, 2, 3, false), shard.NewRecord(3, 1, 1, false)},
		{shard.NewRecord(1, 3, 2, false), shard.NewRecord(4, 2, 0, true)},
	}
	write := func(parts [][]shard.Record) []shard.Set {
		var sets []shard.Set
		for k, recs := range parts {
			path := filepath.Join(dir, fmt.Sprintf("p%d.fps", k))
			info, err := shard.WriteSet(path, recs)
			if err != nil {
				t.Fatal(err)
			}
			sets = append(sets, shard.Set{Path: path, Info: info})
		}
		return sets
	}
	sets := write(parts)
	tot, err := shard.MergeSets(sets)
	if err != nil {
		t.Fatal(err)
	}
	// States 1 to 4 once each; state 1 at depth 0, 2 at depth 1: the
	// depth is that of 4, 2.
	want := shard.Totals{States: 4, Transitions: 2 + 3 + 1 + 0, Terminal: 1, Depth: 2, Shared: 2}
	if tot != want {
		t.Errorf("union %+v, want %+v", tot, want)
	}
	// A damaged file, and one whose certificate says otherwise, are refused.
	data, err := os.ReadFile(sets[1].Path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 1
	if err := os.WriteFile(sets[1].Path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := shard.MergeSets(sets); !errors.Is(err, shard.ErrSet) {
		t.Errorf("damaged file: %v, want ErrSet", err)
	}
	sets[1].Info.Records++
	if _, err := shard.MergeSets(sets); !errors.Is(err, shard.ErrSet) {
		t.Errorf("wrong count: %v, want ErrSet", err)
	}
	// One state with two transition counts: two models, or a collision.
	parts[2][0] = shard.NewRecord(1, 3, 5, false)
	if _, err := shard.MergeSets(write(parts)); !errors.Is(err, shard.ErrSet) {
		t.Errorf("a state with two transition counts: %v, want ErrSet", err)
	}
	// Unsorted records are not written.
	if _, err := shard.WriteSet(filepath.Join(dir, "bad.fps"), []shard.Record{shard.NewRecord(2, 0, 0, true), shard.NewRecord(1, 0, 0, true)}); !errors.Is(err, shard.ErrSet) {
		t.Errorf("unsorted: %v, want ErrSet", err)
	}
}
