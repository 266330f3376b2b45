package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/report"
	"github.com/vacheck/vacheck/specs"
)

// model builds a Model of a catalog spec.
func model(t testing.TB, spec string, flags map[string]string) Model {
	t.Helper()
	s, err := specs.Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	p, err := specs.NewParams(s, flags)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	c := p.Canonical()
	return Model{Spec: s.Name, Params: c, Bug: s.Bug, Claims: s.Claims, Model: m, Unordered: c["channels"] == "unordered", Mailbox: c["channels"] == "mailbox"}
}

// serve starts a server for cfg.
func serve(t testing.TB, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return s, ts
}

// get fetches path and decodes the JSON answer into out; it returns the
// status.
func get(t testing.TB, ts *httptest.Server, method, path string, body io.Reader, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(path, "/api/") && ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q", method, path, ct)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %d, not JSON: %v\n%s", method, path, resp.StatusCode, err, data)
		}
	}
	return resp.StatusCode
}

func crServer(t testing.TB) (*Server, *httptest.Server) {
	return serve(t, Config{Models: []Model{
		model(t, "chang-roberts", map[string]string{"n": "3"}),
		model(t, "chang-roberts-broken", map[string]string{"n": "3"}),
	}})
}

// TestStateView: the state after a path, as the model says: the labels of
// the steps and of the enabled transitions (as traces show them, grouped
// by their process), what the last step changed, the channels with the
// message that can be received, and the properties.
func TestStateView(t *testing.T) {
	_, ts := crServer(t)
	var v View
	if code := get(t, ts, "GET", "/api/state?init=0&path=0.1.2", nil, &v); code != 200 {
		t.Fatalf("status %d", code)
	}
	// chang-roberts --n 3, IDs 1,2,3: send(1)_{1,2}, then the second
	// enabled transition, send(3)_{3,1}, then receive(3)_{3,1} at p1.
	if want := []string{"send(1)_{1,2}", "send(3)_{3,1}", "receive(3)_{3,1}"}; !reflect.DeepEqual(v.Labels, want) {
		t.Errorf("labels %v, want %v", v.Labels, want)
	}
	var enabled []string
	for _, a := range v.Enabled {
		enabled = append(enabled, fmt.Sprintf("%d:%s@p%d", a.Index, a.Label, a.Process))
	}
	if want := "0:send(3)_{1,2}@p1 1:send(2)_{2,3}@p2 2:receive(1)_{1,2}@p2"; strings.Join(enabled, " ") != want {
		t.Errorf("enabled %v, want %s", enabled, want)
	}
	if len(v.Processes) != 3 || v.Processes[0].ID != 1 {
		t.Fatalf("processes %+v", v.Processes)
	}
	var changed []string
	for _, p := range v.Processes {
		for _, x := range p.Vars {
			if x.Changed {
				changed = append(changed, fmt.Sprintf("p%d.%s %s->%s", p.ID, x.Name, x.Old, x.Value))
			}
		}
	}
	if want := "p1.send []->[3]"; strings.Join(changed, ",") != want {
		t.Errorf("changed %v, want %s", changed, want)
	}
	ch := map[string]Channel{}
	for _, c := range v.Channels {
		ch[c.Name] = c
	}
	if c := ch["queue_{1,2}"]; !c.FIFO || len(c.Messages) != 1 || c.Messages[0] != (Message{Value: "1", Action: 2, Sent: -1}) || c.Changed {
		t.Errorf("queue_{1,2}: %+v", c)
	}
	if c := ch["queue_{3,1}"]; len(c.Messages) != 0 || !c.Changed {
		t.Errorf("queue_{3,1}: %+v, want empty and changed", c)
	}
	props := map[string]string{}
	for _, p := range v.Properties {
		props[p.Name] = p.Status
	}
	if want := map[string]string{"uniqueness": "holds", "validity": "holds", "lemma1": "holds", "channel-bound": "holds", "deadlock-freedom": "holds", "quiescence": "pending", "termination": "pending"}; !reflect.DeepEqual(props, want) {
		t.Errorf("properties %v, want %v", props, want)
	}
	if v.Metrics[0].Value != 3 || v.Metrics[1].Value != 2 {
		t.Errorf("metrics %+v, want 3 steps and 2 messages", v.Metrics)
	}
	if !strings.HasPrefix(v.Chart, "<svg") || strings.Count(v.Chart, `<g class="proc">`) != 3 || strings.Count(v.Chart, `class="row"`) != 4 {
		t.Errorf("the chart is not the path's: %.200s", v.Chart)
	}
	if v.Terminal || v.Deadlock || v.Node != -1 {
		t.Errorf("terminal %v deadlock %v node %d", v.Terminal, v.Deadlock, v.Node)
	}

	// The same path by labels.
	q := url.Values{"a": {"send(1)_{1,2}", "send(3)_{3,1}", "receive(3)_{3,1}"}}
	var byLabel View
	if code := get(t, ts, "GET", "/api/state?init=0&"+q.Encode(), nil, &byLabel); code != 200 || !reflect.DeepEqual(byLabel.Path, []int{0, 1, 2}) {
		t.Errorf("by labels: status %d, path %v", code, byLabel.Path)
	}
}

// TestTerminalAndViolation: the broken twin reaches a state where
// uniqueness is violated, shown as such; the run of the correct spec ends
// in a valid terminal state with termination failing (plain Chang-Roberts
// does not tell the others) and no transition offered.
func TestTerminalAndViolation(t *testing.T) {
	_, ts := crServer(t)
	var c CheckAnswer
	if code := get(t, ts, "POST", "/api/check?spec=chang-roberts-broken", nil, &c); code != 200 {
		t.Fatalf("status %d", code)
	}
	if c.Status != "violated" || c.Shortest < 0 || c.Violations[c.Shortest].Property != "uniqueness" {
		t.Fatalf("check: %+v", c)
	}
	ref := c.Violations[c.Shortest]
	var v View
	get(t, ts, "GET", fmt.Sprintf("/api/state?spec=chang-roberts-broken&init=%d&path=%s", ref.Init, joinPath(ref.Path)), nil, &v)
	if st := status(v, "uniqueness"); st != "violated" {
		t.Errorf("uniqueness %q at the end of its counterexample", st)
	}
	// The same check again answers from the cache, identically.
	var again CheckAnswer
	get(t, ts, "POST", "/api/check?spec=chang-roberts-broken", nil, &again)
	if !reflect.DeepEqual(again, c) {
		t.Errorf("a second check differs: %+v", again)
	}

	var ok CheckAnswer
	get(t, ts, "POST", "/api/check", nil, &ok)
	if ok.Status != "ok" || ok.Shortest != -1 || ok.States != 282 {
		t.Errorf("check of chang-roberts: %+v, want ok with 282 states", ok)
	}
	// A random run to the end: terminal, elected, nothing enabled.
	var r RandomRun
	get(t, ts, "GET", "/api/random?init=3&seed=7&steps=1000", nil, &r)
	if r.Stopped != "terminal" || len(r.Path) < 5 {
		t.Fatalf("random run %+v", r)
	}
	get(t, ts, "GET", fmt.Sprintf("/api/state?init=3&path=%s", joinPath(r.Path)), nil, &v)
	if !v.Terminal || v.Deadlock || len(v.Enabled) != 0 || status(v, "deadlock-freedom") != "holds" || status(v, "termination") != "violated" {
		t.Errorf("the end of a run: terminal %v, deadlock %v, %d enabled, properties %+v", v.Terminal, v.Deadlock, len(v.Enabled), v.Properties)
	}
}

func status(v View, prop string) string {
	for _, p := range v.Properties {
		if p.Name == prop {
			return p.Status
		}
	}
	return ""
}

func joinPath(p []int) string {
	s := make([]string, len(p))
	for i, a := range p {
		s[i] = fmt.Sprint(a)
	}
	return strings.Join(s, ".")
}

// TestRandomIsSeeded: the same seed gives the same run; the run extends
// the path it is given.
func TestRandomIsSeeded(t *testing.T) {
	_, ts := crServer(t)
	var a, b, c RandomRun
	get(t, ts, "GET", "/api/random?init=1&path=0&seed=42", nil, &a)
	get(t, ts, "GET", "/api/random?init=1&path=0&seed=42", nil, &b)
	if !reflect.DeepEqual(a, b) || a.Path[0] != 0 || a.Init != 1 || a.Seed != 42 {
		t.Errorf("runs %+v and %+v", a, b)
	}
	get(t, ts, "GET", "/api/random?init=1&path=0&seed=42&steps=2", nil, &c)
	if len(c.Path) != 3 || c.Stopped != "steps" || !reflect.DeepEqual(c.Path, a.Path[:3]) {
		t.Errorf("two steps: %+v, want the start of %v", c, a.Path)
	}
}

// TestTraceLoad: the JSON of `check --format json` loads as the path of
// its counterexample, switching to the twin it is of; a trace of other
// parameters, of an unknown spec or not JSON at all is refused with 400.
func TestTraceLoad(t *testing.T) {
	s, ts := crServer(t)
	broken := s.models[1]
	res, err := explorer.Check(broken.Model.Model, explorer.Config{Properties: broken.Claims})
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := report.JSON(&js, report.Run{Spec: broken.Spec, Params: broken.Params, Result: res}); err != nil {
		t.Fatal(err)
	}
	var ref TraceRef
	if code := get(t, ts, "POST", "/api/trace", bytes.NewReader(js.Bytes()), &ref); code != 200 {
		t.Fatalf("status %d", code)
	}
	want := res.Violations[0].Trace
	if ref.Spec != "chang-roberts-broken" || ref.Init != want.Initial || len(ref.Path) != len(want.Steps) || ref.Property != "uniqueness" {
		t.Fatalf("loaded %+v, want the counterexample from initial state %d with %d steps", ref, want.Initial, len(want.Steps))
	}
	for k, st := range want.Steps {
		if ref.Path[k] != st.ActionIndex {
			t.Fatalf("step %d: action %d, want %d", k+1, ref.Path[k], st.ActionIndex)
		}
	}
	// The --trace file, given to New, is the same.
	s2, ts2 := serve(t, Config{Models: []Model{s.models[0].Model, broken.Model}, Trace: js.Bytes()})
	var given TraceRef
	if code := get(t, ts2, "GET", "/api/trace", nil, &given); code != 200 || !reflect.DeepEqual(given, ref) || s2.trace == nil {
		t.Errorf("--trace: %d %+v", code, given)
	}
	var e apiError
	if code := get(t, ts, "GET", "/api/trace", nil, &e); code != 404 || !strings.Contains(e.Error, "--trace FILE") {
		t.Errorf("no --trace: %d %+v", code, e)
	}

	other := bytes.Replace(js.Bytes(), []byte(`"n": 3`), []byte(`"n": 4`), 1)
	for _, c := range []struct {
		body []byte
		want string
	}{
		{other, "the trace is of chang-roberts-broken --capacity 3 --channels fifo --ids all --n 4 --objective max; this explorer serves"},
		{[]byte("{not json"), "not the JSON of 'vacheck check --format json'"},
		{[]byte(`{"spec":"chang-roberts","violations":[]}`), "no counterexample in the JSON"},
		{[]byte(`{"property":"x","initial":{"p1.u":9},"trace":[]}`), "the trace's initial state is not one of the 6 initial states"},
		{[]byte(`{"property":"x","initial":` + initialOf(t, js.Bytes()) + `,"trace":[{"action":"fly_{1}"}]}`), `step 1: "fly_{1}" is not enabled; the enabled transitions are send(1)_{1,2}, send(2)_{2,3}, send(3)_{3,1}`},
	} {
		var e apiError
		if code := get(t, ts, "POST", "/api/trace", bytes.NewReader(c.body), &e); code != 400 || !strings.Contains(e.Error, c.want) {
			t.Errorf("%.60s: %d %q, want 400 and %q", c.body, code, e.Error, c.want)
		}
	}
	if _, err := New(Config{Models: []Model{s.models[0].Model}, Trace: other}); err == nil || !strings.Contains(err.Error(), "--trace: ") {
		t.Errorf("New with a --trace of other parameters: %v", err)
	}
}

// initialOf returns the initial state of the first violation in the JSON.
func initialOf(t *testing.T, js []byte) string {
	var doc struct {
		Violations []struct {
			Initial json.RawMessage `json:"initial"`
		} `json:"violations"`
	}
	if err := json.Unmarshal(js, &doc); err != nil || len(doc.Violations) == 0 {
		t.Fatal(err)
	}
	return string(doc.Violations[0].Initial)
}

// TestInitialPages: the initial states page through, and a search keeps
// those that match every word.
func TestInitialPages(t *testing.T) {
	_, ts := serve(t, Config{Models: []Model{model(t, "chang-roberts", map[string]string{"n": "4"})}})
	var p InitialPage
	get(t, ts, "GET", "/api/initial?limit=10", nil, &p)
	if len(p.States) != 10 || p.Next != 10 || p.Total != -1 || p.States[0].Index != 0 || !strings.Contains(p.States[0].Summary, "p1.u=1 ") {
		t.Errorf("first page: %+v", p)
	}
	get(t, ts, "GET", "/api/initial?limit=10&offset=20", nil, &p)
	if len(p.States) != 4 || p.Next != -1 || p.Total != 24 || p.States[3].Index != 23 {
		t.Errorf("last page: %+v", p)
	}
	get(t, ts, "GET", "/api/initial?q="+url.QueryEscape("P1.U=4 p2.u=1"), nil, &p)
	if len(p.States) != 2 || p.Total != 24 {
		t.Errorf("search: %+v, want the 2 arrangements with p1.u=4, p2.u=1", p)
	}
	for _, s := range p.States {
		if !strings.Contains(s.Summary, "p1.u=4 ") || !strings.Contains(s.Summary, "p2.u=1 ") {
			t.Errorf("%q does not match", s.Summary)
		}
	}
	var info ModelInfo
	get(t, ts, "GET", "/api/model", nil, &info)
	if info.Initial != 24 || info.InitialMore || info.Spec != "chang-roberts" || info.Channels != "fifo" || len(info.Models) != 1 {
		t.Errorf("model info %+v", info)
	}
}

// TestGraphAPI: a small graph is drawn, with a path to each node that
// leads to it; a large one is refused with 422 and its size.
func TestGraphAPI(t *testing.T) {
	_, ts := serve(t, Config{Models: []Model{model(t, "chang-roberts", map[string]string{"n": "3", "ids": "increasing"}), model(t, "maekawa-basic", map[string]string{"n": "3"})}})
	var g GraphAnswer
	if code := get(t, ts, "GET", "/api/graph", nil, &g); code != 200 || g.States != 39 || g.Edges != 76 || len(g.Nodes) != 39 || !strings.HasPrefix(g.SVG, "<svg") {
		t.Fatalf("graph: %d, %d states", code, g.States)
	}
	n := g.Nodes[20]
	var v View
	get(t, ts, "GET", fmt.Sprintf("/api/state?init=%d&path=%s", n.Init, joinPath(n.Path)), nil, &v)
	if v.Node != 20 {
		t.Errorf("the path to node 20 leads to node %d", v.Node)
	}
	var big GraphAnswer
	if code := get(t, ts, "GET", "/api/graph?spec=maekawa-basic", nil, &big); code != 422 || big.States != 6179 || !strings.Contains(big.TooLarge, "6179 states, more than the limit of 300") {
		t.Errorf("a large graph: %d %+v", code, big)
	}
}

// TestBadRequests: every malformed request gets a JSON error with the
// status its kind calls for, and the server goes on serving.
func TestBadRequests(t *testing.T) {
	_, ts := crServer(t)
	for _, c := range []struct {
		method, path string
		body         io.Reader
		code         int
		want         string
	}{
		{"GET", "/api/nope", nil, 404, "no such page or API: /api/nope"},
		{"GET", "/../../etc/passwd", nil, 404, "no such page"},
		{"GET", "/assets/../../go.mod", nil, 404, "no such page"},
		{"GET", "/assets/secret.txt", nil, 404, "no such page"},
		{"GET", "/index.html.bak", nil, 404, "no such page"},
		{"DELETE", "/api/state", nil, 405, "allowed GET"},
		{"GET", "/api/check", nil, 405, "allowed POST"},
		{"GET", "/api/state?spec=lamport", nil, 404, `spec "lamport" is not served here; this explorer serves chang-roberts, chang-roberts-broken`},
		{"GET", "/api/state?init=6", nil, 404, "no initial state 6: the model has 6 (numbered from 0)"},
		{"GET", "/api/state?init=-1", nil, 400, `init="-1": a whole number from 0`},
		{"GET", "/api/state?init=x", nil, 400, `init="x"`},
		{"GET", "/api/state?path=0.9", nil, 400, "step 2: action 9 is not enabled: the state after step 1 has 3 transitions (0 to 2)"},
		{"GET", "/api/state?path=0.x", nil, 400, `path: step 2 is "x", not an action index`},
		{"GET", "/api/state?path=99999999999999999999", nil, 400, "not an action index"},
		{"GET", "/api/state?path=0&a=send(1)_{1,2}", nil, 400, "not both"},
		{"GET", "/api/state?path=" + strings.Repeat("0.", maxPath+1), nil, 400, "more than 20000"},
		{"GET", "/api/state?path=" + strings.Repeat("0", maxQuery), nil, 414, "more than"},
		{"GET", "/api/initial?limit=1000", nil, 400, "limit=\"1000\": a whole number from 1 to 200"},
		{"GET", "/api/random?steps=0", nil, 400, "steps=\"0\""},
		{"GET", "/api/random?seed=-3", nil, 400, "seed=\"-3\""},
		{"POST", "/api/trace", bytes.NewReader(make([]byte, maxBody+10)), 413, "larger than 8388608 bytes"},
		{"POST", "/api/trace?violation=7", strings.NewReader(`{"violations":[{"initial":{}}]}`), 400, `violation="7": the trace has violations 0 to 0`},
	} {
		var e apiError
		code := get(t, ts, c.method, c.path, c.body, &e)
		if code != c.code || e.Status != c.code || !strings.Contains(e.Error, c.want) {
			t.Errorf("%s %.60s: %d %q, want %d and %q", c.method, c.path, code, e.Error, c.code, c.want)
		}
	}
	// Still serving.
	var v View
	if code := get(t, ts, "GET", "/api/state", nil, &v); code != 200 || len(v.Enabled) != 3 {
		t.Errorf("after the bad requests: %d", code)
	}
	// The page and its assets.
	for path, want := range map[string]string{"/": "<title>vacheck explore</title>", "/assets/app.js": "loadState", "/assets/app.css": "#procs", "/assets/msc.css": "svg .msg"} {
		resp, err := ts.Client().Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(data), want) {
			t.Errorf("%s: %d, without %q", path, resp.StatusCode, want)
		}
		if strings.Contains(string(data), "http://") || strings.Contains(string(data), "https://") {
			t.Errorf("%s refers to the network", path)
		}
	}
}

// TestHostAndRate: a Host not allowed gets 403 (DNS rebinding), and
// requests beyond the rate get 429.
func TestHostAndRate(t *testing.T) {
	_, ts := serve(t, Config{Models: []Model{model(t, "chang-roberts", map[string]string{"n": "3"})}, AllowedHosts: []string{"localhost", "127.0.0.1"}, Rate: 5})
	req, _ := http.NewRequest("GET", ts.URL+"/api/model", nil)
	req.Host = "evil.example:80"
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("Host evil.example: %d, want 403", resp.StatusCode)
	}
	limited := 0
	for range 30 {
		var e apiError
		if code := get(t, ts, "GET", "/api/model", nil, &e); code == 429 {
			limited++
			if !strings.Contains(e.Error, "more than 5 requests a second") {
				t.Errorf("429: %q", e.Error)
			}
		}
	}
	if limited < 15 {
		t.Errorf("%d of 30 requests at once limited, want at least 15 (a bucket of 10)", limited)
	}
}

// TestConcurrentClients: many clients at once get the answers one client
// gets alone (run with -race).
func TestConcurrentClients(t *testing.T) {
	_, ts := crServer(t)
	// The graph first: once it is drawn, a state's answer names its node.
	paths := []string{"/api/graph", "/api/state?init=0&path=0.1.2", "/api/state?init=5&path=2.0.0.1", "/api/state?spec=chang-roberts-broken&init=2&path=1.1",
		"/api/random?init=4&seed=3", "/api/initial?q=p3.u%3D1", "/api/model?spec=chang-roberts-broken"}
	want := map[string]string{}
	for _, p := range paths {
		var v any
		get(t, ts, "GET", p, nil, &v)
		b, _ := json.Marshal(v)
		want[p] = string(b)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for c := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 14 {
				p := paths[(c+k)%len(paths)]
				resp, err := ts.Client().Get(ts.URL + p)
				if err != nil {
					errs <- err.Error()
					return
				}
				var v any
				err = json.NewDecoder(resp.Body).Decode(&v)
				resp.Body.Close()
				b, _ := json.Marshal(v)
				if err != nil || resp.StatusCode != 200 || string(b) != want[p] {
					errs <- fmt.Sprintf("%s: %d %v", p, resp.StatusCode, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestDeadlockShown: the deadlock of maekawa-basic --n 3, loaded from the
// check, shows as a deadlock with its explanation and no transition.
func TestDeadlockShown(t *testing.T) {
	_, ts := serve(t, Config{Models: []Model{model(t, "maekawa-basic", map[string]string{"n": "3"})}})
	var c CheckAnswer
	get(t, ts, "POST", "/api/check", nil, &c)
	if c.Status != "violated" || c.Shortest < 0 || c.Violations[c.Shortest].Property != "deadlock-freedom" {
		t.Fatalf("check %+v", c)
	}
	ref := c.Violations[c.Shortest]
	var v View
	get(t, ts, "GET", fmt.Sprintf("/api/state?init=%d&path=%s", ref.Init, joinPath(ref.Path)), nil, &v)
	if !v.Deadlock || !v.Terminal || len(v.Enabled) != 0 || status(v, "deadlock-freedom") != "violated" || len(v.Explanation) == 0 || len(ref.Path) != 12 {
		t.Errorf("deadlock %v terminal %v, %d enabled, %d steps, explanation %q", v.Deadlock, v.Terminal, len(v.Enabled), len(ref.Path), v.Explanation)
	}
}

// TestCloseStopsCheck: Close cancels a running check, which then answers
// as incomplete rather than hanging.
func TestCloseStopsCheck(t *testing.T) {
	started := make(chan struct{})
	s, ts := serve(t, Config{Models: []Model{model(t, "chang-roberts", map[string]string{"n": "3"})},
		Check: func(ctx context.Context, m Model) (*explorer.Result, error) {
			close(started)
			<-ctx.Done()
			return &explorer.Result{Status: explorer.Incomplete, Reason: "stopped"}, nil
		}})
	done := make(chan CheckAnswer)
	go func() {
		var c CheckAnswer
		get(t, ts, "POST", "/api/check", nil, &c)
		done <- c
	}()
	<-started
	s.Close()
	if c := <-done; c.Status != "incomplete" || c.Reason != "stopped" {
		t.Errorf("after Close: %+v", c)
	}
}

// TestLassoLoads: a lasso's path is its prefix then its cycle, which
// returns to the state where it started (perpetuum-mobile-broken --n 3,
// a starving process).
func TestLassoLoads(t *testing.T) {
	_, ts := serve(t, Config{Models: []Model{model(t, "perpetuum-mobile-broken", map[string]string{"n": "3"})}})
	var c CheckAnswer
	get(t, ts, "POST", "/api/check", nil, &c)
	if c.Status != "violated" || c.Shortest < 0 {
		t.Fatalf("check %+v", c)
	}
	var lasso *TraceRef
	for i, v := range c.Violations {
		if v.CycleStart >= 0 {
			lasso = &c.Violations[i]
		}
	}
	if lasso == nil || lasso.CycleStart >= len(lasso.Path) {
		t.Fatalf("no lasso among %+v", c.Violations)
	}
	var start, end View
	get(t, ts, "GET", fmt.Sprintf("/api/state?init=%d&path=%s", lasso.Init, joinPath(lasso.Path[:lasso.CycleStart])), nil, &start)
	get(t, ts, "GET", fmt.Sprintf("/api/state?init=%d&path=%s", lasso.Init, joinPath(lasso.Path)), nil, &end)
	unmark := func(v View) string {
		for i := range v.Processes {
			for j := range v.Processes[i].Vars {
				v.Processes[i].Vars[j].Changed, v.Processes[i].Vars[j].Old = false, ""
			}
		}
		for i := range v.Channels {
			v.Channels[i].Changed = false
		}
		b, _ := json.Marshal([]any{v.Processes, v.Channels, v.Enabled})
		return string(b)
	}
	if unmark(start) != unmark(end) {
		t.Errorf("the cycle of %s does not return to its start:\n%s\n%s", lasso.Property, unmark(start), unmark(end))
	}
}

// TestLongPathChartWindow: the chart of a long path shows its last 200
// steps (row 0 the state after step ChartFrom), while the labels cover
// the whole path, and every answer is the same as the first.
func TestLongPathChartWindow(t *testing.T) {
	_, ts := serve(t, Config{Models: []Model{model(t, "perpetuum-mobile", map[string]string{"n": "3"})}})
	var r RandomRun
	get(t, ts, "GET", "/api/random?seed=2&steps=500", nil, &r)
	if len(r.Path) != 500 || r.Stopped != "steps" {
		t.Fatalf("random run %+v: the token circulates for ever", r)
	}
	var v, again View
	get(t, ts, "GET", "/api/state?path="+joinPath(r.Path), nil, &v)
	if v.ChartFrom != 300 || len(v.Labels) != 500 || strings.Count(v.Chart, `class="row"`) != 201 {
		t.Errorf("chart from %d with %d rows, %d labels; want 300, 201, 500", v.ChartFrom, strings.Count(v.Chart, `class="row"`), len(v.Labels))
	}
	var short View
	get(t, ts, "GET", "/api/state?path="+joinPath(r.Path[:120]), nil, &short)
	if short.ChartFrom != 0 || !reflect.DeepEqual(short.Labels, v.Labels[:120]) {
		t.Errorf("a 120-step prefix: chart from %d, labels differ: %v", short.ChartFrom, !reflect.DeepEqual(short.Labels, v.Labels[:120]))
	}
	get(t, ts, "GET", "/api/state?path="+joinPath(r.Path), nil, &again)
	if !reflect.DeepEqual(again, v) {
		t.Error("the same state answered twice differs (the label cache)")
	}
}

// TestUnorderedBag: on unordered channels (bags) every message can be
// received, listed in the order they were sent (1 in step 1, 3 in step
// 4), so that receiving the later one overtakes the earlier; on FIFO
// channels only the head.
func TestUnorderedBag(t *testing.T) {
	q := url.Values{"a": {"send(1)_{1,2}", "send(3)_{3,1}", "receive(3)_{3,1}", "send(3)_{1,2}"}}.Encode()
	for _, c := range []struct {
		channels, name string
		fifo           bool
		want           []string
		sent           []int
	}{
		{"unordered", "bag_{1,2}", false, []string{"receive(1)_{1,2}", "receive(3)_{1,2}"}, []int{1, 4}},
		{"fifo", "queue_{1,2}", true, []string{"receive(1)_{1,2}", ""}, []int{-1, -1}},
	} {
		_, ts := serve(t, Config{Models: []Model{model(t, "chang-roberts", map[string]string{"n": "3", "channels": c.channels})}})
		var v View
		if code := get(t, ts, "GET", "/api/state?"+q, nil, &v); code != 200 {
			t.Fatalf("%s: status %d", c.channels, code)
		}
		ch := v.Channels[0]
		if ch.Name != c.name || ch.FIFO != c.fifo || len(ch.Messages) != 2 || ch.Messages[0].Value != "1" || ch.Messages[1].Value != "3" ||
			ch.Messages[0].Sent != c.sent[0] || ch.Messages[1].Sent != c.sent[1] {
			t.Fatalf("%s: %+v", c.channels, ch)
		}
		for k, m := range ch.Messages {
			got := ""
			if m.Action >= 0 {
				got = v.Enabled[m.Action].Label
			}
			if got != c.want[k] {
				t.Errorf("%s: message %s is received by %q, want %q", c.channels, m.Value, got, c.want[k])
			}
		}
	}
}

// TestMailboxIsAChannel: with --channels mailbox, each mailbox_{j} is a
// channel into j, not a variable: its messages "i:v" as the story shows
// them, in the order they were sent (1:1 in step 1, 1:3 in step 4), each
// receivable, the later one ahead of the one its sender sent before it.
// The mailbox of a process the messages of several senders share counts
// only its sender's as ahead.
func TestMailboxIsAChannel(t *testing.T) {
	_, ts := serve(t, Config{Models: []Model{model(t, "chang-roberts", map[string]string{"n": "3", "channels": "mailbox"})}})
	var info ModelInfo
	if code := get(t, ts, "GET", "/api/model", nil, &info); code != 200 || info.Channels != "mailbox" {
		t.Fatalf("model: status %d, channels %q; want mailbox", code, info.Channels)
	}
	q := url.Values{"a": {"send(1)_{1,2}", "send(3)_{3,1}", "receive(3)_{3,1}", "send(3)_{1,2}"}}.Encode()
	var v View
	if code := get(t, ts, "GET", "/api/state?"+q, nil, &v); code != 200 {
		t.Fatalf("status %d", code)
	}
	for _, g := range v.Globals {
		if strings.HasPrefix(g.Name, "mailbox_") {
			t.Errorf("%s is shown as a variable", g.Name)
		}
	}
	if len(v.Channels) != 3 {
		t.Fatalf("channels %+v, want the 3 mailboxes", v.Channels)
	}
	for k, c := range v.Channels {
		if c.Name != fmt.Sprintf("mailbox_{%d}", k+1) || !c.Mailbox || c.FIFO || c.To != k+1 || c.From != 0 {
			t.Errorf("channel %d: %+v, want mailbox_{%d} into %d", k, c, k+1, k+1)
		}
	}
	type msg struct {
		value, receive string
		sent, ahead    int
	}
	// messages lists a mailbox's messages with the transition that
	// receives each now ("" when none does).
	messages := func(v View, c int) []msg {
		var out []msg
		for _, m := range v.Channels[c].Messages {
			r := ""
			if m.Action >= 0 {
				r = v.Enabled[m.Action].Label
			}
			out = append(out, msg{m.Value, r, m.Sent, m.Ahead})
		}
		return out
	}
	got := messages(v, 1)
	if want := []msg{{"1:1", "receive(1)_{1,2}", 1, 0}, {"1:3", "receive(3)_{1,2}", 4, 1}}; !reflect.DeepEqual(got, want) {
		t.Errorf("mailbox_{2}: %+v, want %+v", got, want)
	}
	if len(v.Channels[0].Messages) != 0 || len(v.Channels[2].Messages) != 0 {
		t.Errorf("mailboxes 1 and 3 should be empty: %+v", v.Channels)
	}
	// On a complete graph, mailbox_{1} holds REQUESTs of 2 and 3: neither
	// is ahead of the other's.
	_, ts = serve(t, Config{Models: []Model{model(t, "ricart-agrawala", map[string]string{"n": "3", "capacity": "4", "channels": "mailbox"})}})
	q = url.Values{"a": {"request_{2}", "request_{3}"}}.Encode()
	var w View
	if code := get(t, ts, "GET", "/api/state?"+q, nil, &w); code != 200 {
		t.Fatalf("ricart-agrawala: status %d", code)
	}
	got = messages(w, 0)
	if want := []msg{{"2:REQUEST(1,2)", "receive(REQUEST(1,2))_{2,1}", 1, 0}, {"3:REQUEST(1,3)", "receive(REQUEST(1,3))_{3,1}", 2, 0}}; !reflect.DeepEqual(got, want) {
		t.Errorf("ricart-agrawala mailbox_{1}: %+v, want %+v", got, want)
	}
}
