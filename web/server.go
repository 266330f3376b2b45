// Package web is vacheck's interactive explorer: a local web server whose
// page steps through a model one transition at a time, the user choosing
// each, with the state of every process and channel, the truth of every
// property, the enabled transitions as buttons and the message sequence
// chart of the path so far; and a JSON API under /api/ that serves the page
// and scripts alike (docs/explore.md documents it).
//
// The server keeps no session: a path is an initial-state index and a list
// of action indices, carried in every request (and in the page's URL, so
// a reload or a shared link shows the same state), and replayed on the
// model. The page, its script and styles are embedded in the binary: no
// network is needed.
package web

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/report"
	"github.com/vacheck/vacheck/report/msc"
	"github.com/vacheck/vacheck/simulate"
	"github.com/vacheck/vacheck/stategraph"
)

//go:embed assets
var assets embed.FS

// Model is one model the explorer serves.
type Model struct {
	Spec   string         // the spec's name, e.g. chang-roberts
	Params map[string]any // its canonical parameters, as check's JSON gives them
	Bug    string         // for a broken twin: what was broken on purpose
	Claims []string       // the properties "run to a violation" checks
	// Model is the model; it must be an explorer.Describer.
	Model explorer.Model
	// Unordered says that the channels are unordered (bags) rather than
	// FIFO.
	Unordered bool
	// Mailbox says that each process receives through a mailbox
	// (channel.Mailbox): an unordered channel from each sender, shown as
	// one.
	Mailbox bool
}

// ParamLine is the model's parameters as on the command line.
func (m Model) ParamLine() string { return report.Params(m.Params) }

// Config sets up a Server.
type Config struct {
	// Models are the models the page can switch between (a spec and its
	// broken twin, with the same parameters); the first is the default.
	Models []Model
	// Check runs the check of "run to a violation" on m. When nil, it is
	// explorer.Check with m's claims, breadth first (shortest
	// counterexamples), stopped by ctx.
	Check func(ctx context.Context, m Model) (*explorer.Result, error)
	// CheckTimeout bounds a check; zero means one minute.
	CheckTimeout time.Duration
	// Trace is a counterexample in the JSON of `check --format json` that
	// the user named on the command line (--trace FILE): the page offers
	// to load it. New fails when it does not replay on one of Models.
	Trace []byte
	// GraphStates is the largest state graph the page draws; zero means
	// 300.
	GraphStates int
	// Rate is how many API requests a second the server answers (a token
	// bucket of twice that); zero means 200. Others get 429.
	Rate int
	// AllowedHosts, when set, are the host names the server answers
	// (the Host header, without its port); others get 403, which keeps a
	// web page elsewhere from reaching a loopback server through DNS
	// rebinding. Empty allows every host.
	AllowedHosts []string
}

// Bounds of a request.
const (
	maxBody      = 8 << 20 // a POSTed trace
	maxPath      = 20000   // steps in a path
	maxQuery     = 256 << 10
	maxPage      = 200   // initial states in one page
	maxRandom    = 10000 // steps of a random run
	scanBudget   = 3 * time.Second
	maxInFlight  = 8 // requests computing at once
	defaultGraph = 300
)

// Server is the explorer's HTTP handler.
type Server struct {
	cfg    Config
	models []*served
	trace  *TraceRef // the --trace file, replayed
	mux    *http.ServeMux
	tokens *bucket
	slots  chan struct{}
	ctx    context.Context // cancelled by Close: stops running checks
	cancel context.CancelFunc
}

// New makes a server for cfg. It fails when a model cannot be shown or
// cfg.Trace does not replay.
func New(cfg Config) (*Server, error) {
	if len(cfg.Models) == 0 {
		return nil, errors.New("web: no model to explore")
	}
	if cfg.GraphStates <= 0 {
		cfg.GraphStates = defaultGraph
	}
	if cfg.CheckTimeout <= 0 {
		cfg.CheckTimeout = time.Minute
	}
	if cfg.Rate <= 0 {
		cfg.Rate = 200
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), tokens: newBucket(cfg.Rate), slots: make(chan struct{}, maxInFlight)}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	for _, m := range cfg.Models {
		sv, err := newServed(m)
		if err != nil {
			return nil, err
		}
		s.models = append(s.models, sv)
	}
	if cfg.Trace != nil {
		ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
		defer cancel()
		ref, err := s.loadTrace(ctx, cfg.Trace, "")
		if err != nil {
			return nil, fmt.Errorf("--trace: %w", err)
		}
		s.trace = ref
	}
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		return nil, err
	}
	s.mux.HandleFunc("GET /{$}", s.page(static, "index.html", "text/html; charset=utf-8"))
	s.mux.HandleFunc("GET /assets/app.js", s.page(static, "app.js", "text/javascript; charset=utf-8"))
	s.mux.HandleFunc("GET /assets/app.css", s.page(static, "app.css", "text/css; charset=utf-8"))
	s.mux.HandleFunc("GET /assets/msc.css", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		io.WriteString(w, msc.Stylesheet())
	})
	s.mux.HandleFunc("GET /api/model", s.api(s.handleModel))
	s.mux.HandleFunc("GET /api/initial", s.api(s.handleInitial))
	s.mux.HandleFunc("GET /api/state", s.api(s.handleState))
	s.mux.HandleFunc("GET /api/random", s.api(s.handleRandom))
	s.mux.HandleFunc("GET /api/graph", s.api(s.handleGraph))
	s.mux.HandleFunc("POST /api/check", s.api(s.handleCheck))
	s.mux.HandleFunc("GET /api/trace", s.api(s.handleTraceGiven))
	s.mux.HandleFunc("POST /api/trace", s.api(s.handleTraceLoad))
	return s, nil
}

// Close stops the checks that are running.
func (s *Server) Close() { s.cancel() }

// ServeHTTP implements http.Handler: every answer to a bad request is a
// JSON error with status 400, 403, 404, 405, 413 or 429, never a panic.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			writeError(w, http.StatusInternalServerError, fmt.Sprintf("internal error: %v", p))
		}
	}()
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if len(s.cfg.AllowedHosts) > 0 && !s.hostAllowed(r.Host) {
		writeError(w, http.StatusForbidden, fmt.Sprintf("host %q is not served: open the URL vacheck printed", r.Host))
		return
	}
	if len(r.URL.RawQuery) > maxQuery {
		writeError(w, http.StatusRequestURITooLong, fmt.Sprintf("the query has %d bytes, more than %d", len(r.URL.RawQuery), maxQuery))
		return
	}
	if _, pattern := s.mux.Handler(r); pattern == "" {
		// Unknown path or method: the mux would answer in plain text.
		allowed := s.methodsFor(r)
		if allowed != "" {
			h.Set("Allow", allowed)
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: allowed %s", r.Method, r.URL.Path, allowed))
			return
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such page or API: %s (the API is under /api/: model, initial, state, random, graph, check, trace)", r.URL.Path))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// methodsFor returns the methods the path of r takes, or "" when it takes
// none.
func (s *Server) methodsFor(r *http.Request) string {
	var ok []string
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" {
			ok = append(ok, m)
		}
	}
	return strings.Join(ok, ", ")
}

func (s *Server) hostAllowed(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	for _, a := range s.cfg.AllowedHosts {
		if strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

func (s *Server) page(static fs.FS, name, ctype string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		data, err := fs.ReadFile(static, name)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		w.Header().Set("Content-Type", ctype)
		w.Write(data)
	}
}

// api wraps an API handler: the rate limit, a slot among maxInFlight, and
// the answer as JSON (an error with the status its kind calls for).
func (s *Server) api(h func(r *http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.tokens.take() {
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusTooManyRequests, fmt.Sprintf("more than %d requests a second: slow down", s.cfg.Rate))
			return
		}
		select {
		case s.slots <- struct{}{}:
			defer func() { <-s.slots }()
		case <-r.Context().Done():
			return
		}
		out, err := h(r)
		if err != nil {
			var mb *http.MaxBytesError
			var re *requestError
			switch {
			case errors.As(err, &re):
				writeError(w, re.status, re.Error())
			case errors.As(err, &mb):
				writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", mb.Limit))
			case errors.Is(err, errTooLarge):
				writeJSON(w, http.StatusUnprocessableEntity, out)
			default:
				writeError(w, http.StatusInternalServerError, err.Error())
			}
			return
		}
		writeJSON(w, http.StatusOK, out)
	}
}

// apiError is the body of every error answer.
type apiError struct {
	Error  string `json:"error"`
	Status int    `json:"status"`
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, apiError{Error: msg, Status: code})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	enc.Encode(v)
}

// bucket is a token bucket: rate tokens a second, up to 2*rate.
type bucket struct {
	mu     sync.Mutex
	rate   float64
	tokens float64
	last   time.Time
}

func newBucket(rate int) *bucket {
	return &bucket{rate: float64(rate), tokens: 2 * float64(rate), last: time.Now()}
}

func (b *bucket) take() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	b.tokens = min(2*b.rate, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// The parameters of a request.

// model returns the model the query's spec names, the first by default.
func (s *Server) model(r *http.Request) (*served, error) {
	name := r.URL.Query().Get("spec")
	if name == "" {
		return s.models[0], nil
	}
	var have []string
	for _, m := range s.models {
		if m.Spec == name {
			return m, nil
		}
		have = append(have, m.Spec)
	}
	return nil, notFound("spec %q is not served here; this explorer serves %s", name, strings.Join(have, ", "))
}

// indexes reports whether ix builds initial states by index.
func indexes(ix explorer.InitialIndexer) bool {
	_, _, err := ix.InitialAt(0)
	return !errors.Is(err, errors.ErrUnsupported)
}

// intParam reads a whole number from the query: def when it is absent.
func intParam(r *http.Request, name string, def, lo, hi int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, badRequest("%s=%q: a whole number from %d to %d", name, v, lo, hi)
	}
	return n, nil
}

// pathParam reads the path of the query: path=3.0.1 (action indices,
// separated by dots, commas or spaces), or the labels a=send(1)_{1,2}&a=...
func (s *Server) pathParam(ctx context.Context, r *http.Request, m *served, from origin) ([]int, error) {
	q := r.URL.Query()
	if labels := q["a"]; len(labels) > 0 {
		if q.Get("path") != "" {
			return nil, badRequest("give the path as path= (action indices) or as a= (labels), not both")
		}
		if len(labels) > maxPath {
			return nil, badRequest("the path has %d steps, more than %d", len(labels), maxPath)
		}
		return m.replayLabels(ctx, from, labels)
	}
	return parsePath(q.Get("path"))
}

// parsePath reads action indices separated by dots, commas or spaces.
func parsePath(v string) ([]int, error) {
	path := []int{}
	if v == "" {
		return path, nil
	}
	fields := strings.FieldsFunc(v, func(c rune) bool { return c == '.' || c == ',' || c == ' ' })
	if len(fields) > maxPath {
		return nil, badRequest("the path has %d steps, more than %d", len(fields), maxPath)
	}
	for k, f := range fields {
		a, err := strconv.Atoi(f)
		if err != nil || a < 0 || a > 1<<20 {
			return nil, badRequest("path: step %d is %q, not an action index (a whole number from 0)", k+1, f)
		}
		path = append(path, a)
	}
	return path, nil
}

// location reads the model, initial state and path of a request and
// replays it.
func (s *Server) location(r *http.Request) (*served, *walk, error) {
	m, err := s.model(r)
	if err != nil {
		return nil, nil, err
	}
	from, err := originParam(r)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), scanBudget)
	defer cancel()
	path, err := s.pathParam(ctx, r, m, from)
	if err != nil {
		return nil, nil, err
	}
	w, err := m.replay(ctx, from, path)
	return m, w, err
}

// originParam reads where the path of the query starts: init=K, the
// initial state K (0-based), or sample=S, the initial state that run 0 of
// vacheck simulate --seed S draws.
func originParam(r *http.Request) (origin, error) {
	init, err := intParam(r, "init", 0, 0, 1<<40)
	if err != nil {
		return origin{}, err
	}
	if r.URL.Query().Get("sample") == "" {
		return origin{index: init}, nil
	}
	if r.URL.Query().Get("init") != "" {
		return origin{}, badRequest("give the initial state as init= (its index) or as sample= (the seed that draws it), not both")
	}
	seed, err := intParam(r, "sample", 0, 0, 1<<52)
	return origin{drawn: true, seed: uint64(seed)}, err
}

// The handlers.

// ModelInfo is the answer of /api/model.
type ModelInfo struct {
	Spec       string        `json:"spec"`
	Params     string        `json:"params"`
	Bug        string        `json:"bug,omitempty"`
	Models     []ModelChoice `json:"models"`
	Properties []PropInfo    `json:"properties"`
	Channels   string        `json:"channels"` // fifo, unordered or mailbox
	// Initial is the number of initial states, counted up to 10,000;
	// InitialMore says there are more.
	Initial     int  `json:"initial"`
	InitialMore bool `json:"initial_more,omitempty"`
	// Trace says that a trace was named on the command line (GET
	// /api/trace loads it).
	Trace       bool `json:"trace"`
	GraphStates int  `json:"graph_states"`
}

// ModelChoice is a model the page can switch to.
type ModelChoice struct {
	Spec   string `json:"spec"`
	Params string `json:"params"`
	Bug    string `json:"bug,omitempty"`
}

// PropInfo describes a property.
type PropInfo struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	Doc   string `json:"doc"`
	Claim bool   `json:"claim"`
}

func (s *Server) handleModel(r *http.Request) (any, error) {
	m, err := s.model(r)
	if err != nil {
		return nil, err
	}
	info := ModelInfo{Spec: m.Spec, Params: m.ParamLine(), Bug: m.Bug, Channels: "fifo", Trace: s.trace != nil, GraphStates: s.cfg.GraphStates}
	switch {
	case m.Mailbox:
		info.Channels = "mailbox"
	case m.Unordered:
		info.Channels = "unordered"
	}
	for _, o := range s.models {
		info.Models = append(info.Models, ModelChoice{Spec: o.Spec, Params: o.ParamLine(), Bug: o.Bug})
	}
	claim := map[string]bool{}
	for _, c := range m.Claims {
		claim[c] = true
	}
	for _, p := range m.props {
		info.Properties = append(info.Properties, PropInfo{p.Name, p.Kind.String(), p.Doc, claim[p.Name]})
	}
	if lm, ok := m.Model.Model.(explorer.LiveModel); ok {
		for _, p := range lm.Liveness() {
			info.Properties = append(info.Properties, PropInfo{p.Name, p.Kind.String(), p.Doc, claim[p.Name]})
		}
	}
	const countTo = 10000
	err = explorer.EachInitial(m.Model.Model, func([]byte) bool {
		if info.Initial == countTo {
			info.InitialMore = true
			return false
		}
		info.Initial++
		return true
	})
	return info, err
}

// InitialPage is the answer of /api/initial: a page of initial states.
type InitialPage struct {
	States []InitialState `json:"states"`
	// Next is the offset of the next page, or -1 at the end.
	Next int `json:"next"`
	// Scanned is how many initial states were looked at; Total is their
	// number when the scan reached the end, else -1.
	Scanned int `json:"scanned"`
	Total   int `json:"total"`
	// Stopped says why a scan ended early (its time budget).
	Stopped string `json:"stopped,omitempty"`
}

// InitialState is one initial state, summarised.
type InitialState struct {
	Index   int    `json:"index"`
	Summary string `json:"summary"`
}

// handleInitial pages through the initial states, streaming them, those
// whose summary contains every word of q (any case), from offset on (an
// index among all initial states).
func (s *Server) handleInitial(r *http.Request) (any, error) {
	m, err := s.model(r)
	if err != nil {
		return nil, err
	}
	offset, err := intParam(r, "offset", 0, 0, 1<<40)
	if err != nil {
		return nil, err
	}
	limit, err := intParam(r, "limit", 20, 1, maxPage)
	if err != nil {
		return nil, err
	}
	q := r.URL.Query().Get("q")
	if len(q) > 200 {
		return nil, badRequest("q: at most 200 characters")
	}
	words := strings.Fields(strings.ToLower(q))
	ctx, cancel := context.WithTimeout(r.Context(), scanBudget)
	defer cancel()
	page := InitialPage{States: []InitialState{}, Next: -1, Total: -1}
	k := 0
	var ferr error
	done := true
	visit := func(st []byte) bool {
		defer func() { k++ }()
		page.Scanned = k + 1
		if k&255 == 0 && ctx.Err() != nil {
			page.Stopped = fmt.Sprintf("the search stopped after %d initial states (%v): narrow it, or page on from offset %d", k, scanBudget, k)
			page.Next, done = k, false
			return false
		}
		if k < offset {
			return true
		}
		if len(page.States) == limit {
			page.Next, done = k, false
			return false
		}
		vars, err := m.describer.Describe(st)
		if err != nil {
			ferr = err
			return false
		}
		sum := summary(vars)
		low := strings.ToLower(sum)
		for _, w := range words {
			if !strings.Contains(low, w) {
				return true
			}
		}
		page.States = append(page.States, InitialState{Index: k, Summary: sum})
		return true
	}
	if ix, ok := m.Model.Model.(explorer.InitialIndexer); ok && offset > 0 && indexes(ix) {
		// Straight to the offset, where the model builds states by index;
		// past the last, done stays true and k is their number.
		for k = offset; ; {
			st, ok, ierr := ix.InitialAt(k)
			if ierr != nil {
				ferr = ierr
				break
			}
			if !ok || !visit(st) {
				break
			}
		}
	} else {
		err = explorer.EachInitial(m.Model.Model, visit)
	}
	if err == nil {
		err = ferr
	}
	if done {
		page.Total = k
	}
	return page, err
}

// summary is a state in one line: its variables, empty channels left out.
func summary(vars []explorer.Var) string {
	var parts []string
	for _, v := range vars {
		val := msc.Format(v.Value)
		if queueRE.MatchString(v.Name) && val == "[]" {
			continue
		}
		parts = append(parts, v.Name+"="+val)
	}
	return strings.Join(parts, " ")
}

func (s *Server) handleState(r *http.Request) (any, error) {
	m, w, err := s.location(r)
	if err != nil {
		return nil, err
	}
	return m.view(r.Context(), w)
}

// RandomRun is the answer of /api/random.
type RandomRun struct {
	// Init is the index of the initial state, or -1 for one drawn with
	// the seed Sample (a new run).
	Init   int     `json:"init"`
	Sample *uint64 `json:"sample,omitempty"`
	Path   []int   `json:"path"`
	Seed   int64   `json:"seed"`
	// Stopped says why the run ended: terminal, violation (an invariant or
	// assertion fails), steps (the limit) or, for a new run of a model
	// with a constraint, bound (a state outside it).
	Stopped string `json:"stopped"`
}

// handleRandom does a random run. With new=1 it is a new run, run 0 of
// vacheck simulate --seed S --max-steps N (simulate.Walk): the initial
// state drawn by the model's sampler, then at each step one of the
// enabled transitions chosen uniformly, until a terminal state, a
// violated invariant or assertion, or steps steps; its path starts from
// sample=S. Otherwise it extends the path of the request by a seeded
// random walk with the same stops.
func (s *Server) handleRandom(r *http.Request) (any, error) {
	steps, err := intParam(r, "steps", 200, 1, maxRandom)
	if err != nil {
		return nil, err
	}
	seed, err := intParam(r, "seed", 1, 0, 1<<52)
	if err != nil {
		return nil, err
	}
	switch fresh := r.URL.Query().Get("new"); fresh {
	case "", "0":
	case "1":
		m, err := s.model(r)
		if err != nil {
			return nil, err
		}
		run, err := simulate.Walk(m.Model.Model, simulate.Config{Seed: uint64(seed), MaxSteps: steps}, 0)
		if errors.Is(err, simulate.ErrConfig) {
			return nil, badRequest("new=1: %v", err)
		}
		if err != nil {
			return nil, err
		}
		u := uint64(seed)
		return RandomRun{Init: -1, Sample: &u, Path: run.Actions, Seed: int64(seed), Stopped: run.End}, nil
	default:
		return nil, badRequest("new=%q: 1 for a new run from a drawn initial state, 0 (the default) to extend the path", fresh)
	}
	m, w, err := s.location(r)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x76616368))
	run := RandomRun{Init: w.init, Path: append([]int{}, w.acts...), Seed: int64(seed), Stopped: "steps"}
	if w.from.drawn {
		run.Sample = &w.from.seed
	}
	st, succ := w.states[len(w.states)-1], w.last
	wk := m.worker()
	defer m.release(wk)
	for k := 0; k < steps && len(run.Path) < maxPath; k++ {
		if mask, err := wk.Check(st, m.want); err != nil {
			return nil, err
		} else if mask != 0 {
			run.Stopped = "violation"
			break
		}
		if len(succ) == 0 {
			run.Stopped = "terminal"
			break
		}
		a := rng.IntN(len(succ))
		run.Path = append(run.Path, a)
		st = succ[a].next
		if succ, err = m.successors(st); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// graphCache builds a model's state graph once.
type graphCache struct {
	once  sync.Once
	mu    sync.Mutex
	done  bool
	graph *graphAnswer
	err   error
}

// ready returns the graph when it has been built and is small enough.
func (c *graphCache) ready() *stategraph.Graph {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.done || c.graph == nil || c.graph.g == nil {
		return nil
	}
	return c.graph.g
}

var errTooLarge = errors.New("graph too large")

func (s *Server) handleGraph(r *http.Request) (any, error) {
	m, err := s.model(r)
	if err != nil {
		return nil, err
	}
	m.graph.once.Do(func() {
		ctx, cancel := context.WithTimeout(s.ctx, 20*time.Second)
		defer cancel()
		g, err := buildGraph(ctx, m, s.cfg.GraphStates)
		m.graph.mu.Lock()
		m.graph.graph, m.graph.err, m.graph.done = g, err, true
		m.graph.mu.Unlock()
	})
	g := m.graph.graph
	if m.graph.err != nil {
		return nil, m.graph.err
	}
	if g.TooLarge != "" {
		return g, errTooLarge
	}
	return g, nil
}
