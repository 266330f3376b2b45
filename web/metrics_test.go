package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// pathOf returns the /api/state query of trace tr of m's model.
func pathOf(t *testing.T, s *served, tr *explorer.Trace) string {
	t.Helper()
	labels := make([]string, len(tr.Steps))
	for k, st := range tr.Steps {
		labels[k] = st.Action
	}
	path, err := s.replayLabels(context.Background(), origin{index: tr.Initial}, labels)
	if err != nil {
		t.Fatal(err)
	}
	parts := make([]string, len(path))
	for k, a := range path {
		parts[k] = strconv.Itoa(a)
	}
	return fmt.Sprintf("init=%d&path=%s", tr.Initial, url.QueryEscape(strings.Join(parts, ".")))
}

// TestMetricsAgreeWithCheck: the page's metrics are computed through the
// hooks the check uses. For every witness run of explorer.Check's metrics
// (time, sync-delay, messages-per-entry, messages, messages:TYPE), loaded
// into the explorer, the page shows the figure the check reports: the
// total of time and the message counts on a complete execution, the last
// sync-delay sample (a witness ends with the step the sample is taken at),
// and the count of the witness's entry. Instances: lamport --n 2 (FIFO,
// every metric), perpetuum-mobile --n 3 (sync-delay 1 to 2,
// docs/properties.md 2.9; it never terminates, so only sync-delay has
// witnesses without a cycle) and maekawa-basic --n 3 --requesters 1,2.
func TestMetricsAgreeWithCheck(t *testing.T) {
	cases := []struct {
		spec    string
		flags   map[string]string
		metrics []string
	}{
		{"lamport", map[string]string{"n": "2"}, []string{"time", "sync-delay", "messages-per-entry", "messages", "messages:REQUEST"}},
		{"perpetuum-mobile", map[string]string{"n": "3"}, []string{"sync-delay"}},
		{"maekawa-basic", map[string]string{"n": "3", "requesters": "1,2"}, []string{"messages-per-entry", "steps", "time"}},
	}
	compared := map[string]int{}
	for _, c := range cases {
		m := model(t, c.spec, c.flags)
		srv, ts := serve(t, Config{Models: []Model{m}})
		r, err := explorer.Check(m.Model, explorer.Config{Metrics: c.metrics, Properties: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range r.Metrics {
			for _, w := range []struct {
				tr   *explorer.Trace
				want int64
				of   string
			}{{x.MinWitness, x.Min, x.MinOf}, {x.MaxWitness, x.Max, x.MaxOf}} {
				if w.tr == nil || len(w.tr.Cycle) > 0 || !x.Executions {
					continue
				}
				q := pathOf(t, srv.models[0], w.tr)
				var v View
				if code := get(t, ts, "GET", "/api/state?"+q, nil, &v); code != 200 {
					t.Fatalf("%s: status %d", q, code)
				}
				got := map[string]MetricView{}
				for _, mv := range v.Metrics {
					got[mv.Name] = mv
				}
				mv, ok := got[x.Name]
				if !ok {
					t.Errorf("%s %v: the page shows no %s: %+v", c.spec, c.flags, x.Name, v.Metrics)
					continue
				}
				val := mv.Value
				if x.Name == explorer.MetricMessagesPerEntry {
					// The figure of the witness's entry, as the doc lists it.
					val = -1
					for _, part := range strings.Split(mv.Doc[strings.Index(mv.Doc, ": ")+2:], "; ") {
						if name, n, ok := strings.Cut(part, ": "); ok && name == w.of {
							val, _ = strconv.ParseInt(n, 10, 64)
						}
					}
				}
				compared[x.Name]++
				if val != w.want {
					t.Errorf("%s %v: %s on the witness %s is %d (%q), the check says %d", c.spec, c.flags, x.Name, q, val, mv.Text, w.want)
				}
			}
		}
	}
	// Every metric was compared on both witnesses of every instance it
	// was asked of.
	want := map[string]int{"time": 4, "sync-delay": 4, "messages-per-entry": 4, "messages": 2, "messages:REQUEST": 2, "steps": 2}
	if fmt.Sprint(compared) != fmt.Sprint(want) {
		t.Errorf("compared %v, want %v", compared, want)
	}
}

// TestMetricsOfAPath: every metric lamport --n 2 offers, after both
// processes' critical sections: 12 steps; 6 messages, 3(N−1) per entry
// (a REQUEST, an ACK and a RELEASE to the other process), 2 of each type;
// one sync-delay sample of 1 hop (p2 waits at p1's exit for its RELEASE);
// and time 4, by hand: REQUEST (depth 1), ACK (2), p1's RELEASE after it
// received the ACK (3), p2's RELEASE after it received that one (4).
// Chang-roberts --n 3 declares a message type per ID and offers time but
// not the mutual-exclusion metrics.
func TestMetricsOfAPath(t *testing.T) {
	cases := []struct {
		spec  string
		flags map[string]string
		path  string
		want  string
	}{
		{"lamport", map[string]string{"n": "2"}, "0.0.0.0.0.0.0.0.0.0.0.0",
			"steps=12 messages=6 messages:REQUEST=2 messages:ACK=2 messages:RELEASE=2 time=4 sync-delay=1(1) messages-per-entry=3(3, 3)"},
		{"lamport", map[string]string{"n": "2"}, "0",
			"steps=1 messages=1 messages:REQUEST=1 messages:ACK=0 messages:RELEASE=0 time=1 sync-delay=-1(none yet) messages-per-entry=1(1)"},
		{"chang-roberts", map[string]string{"n": "3"}, "0.1.2",
			"steps=3 messages=2 messages:1=1 messages:2=0 messages:3=1 time=1"},
	}
	for _, c := range cases {
		_, ts := serve(t, Config{Models: []Model{model(t, c.spec, c.flags)}})
		var v View
		if code := get(t, ts, "GET", "/api/state?init=0&path="+c.path, nil, &v); code != 200 {
			t.Fatalf("status %d", code)
		}
		var got []string
		for _, m := range v.Metrics {
			s := fmt.Sprintf("%s=%d", m.Name, m.Value)
			if m.Text != "" {
				s += "(" + m.Text + ")"
			}
			got = append(got, s)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s %v after %s: %s\nwant %s", c.spec, c.flags, c.path, strings.Join(got, " "), c.want)
		}
	}
}

// TestMetricsIncremental: a path measured click by click, from the
// measured prefixes the server keeps, and after going back, has the
// metrics of the same path measured at once on a fresh server.
func TestMetricsIncremental(t *testing.T) {
	path := strings.Split("0.0.0.0.0.0.0.0.0.0.0.0", ".")
	at := func(ts *httptest.Server, k int) string {
		var v View
		if code := get(t, ts, "GET", "/api/state?init=0&path="+strings.Join(path[:k], "."), nil, &v); code != 200 {
			t.Fatalf("status %d", code)
		}
		return fmt.Sprint(v.Metrics)
	}
	once := make([]string, len(path)+1)
	for k := range once {
		_, fresh := serve(t, Config{Models: []Model{model(t, "lamport", map[string]string{"n": "2"})}})
		once[k] = at(fresh, k)
	}
	_, clicks := serve(t, Config{Models: []Model{model(t, "lamport", map[string]string{"n": "2"})}})
	for _, k := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 6, 7, 8, 9, 10, 11, 12, 3, 12} {
		if got := at(clicks, k); got != once[k] {
			t.Errorf("after %d steps: clicked %s\nat once %s", k, got, once[k])
		}
	}
}
