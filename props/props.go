// Package props compiles properties written as expressions (the
// expression language of github.com/expr-lang/expr) into properties the
// explorer checks on any model that lets them read its states
// (explorer.Observable, which every automaton.System is). It is what the
// flags --invariant, --reach, --eventually, --leads-to, --stable,
// --action and --constraint of `vacheck check` use, and a Go user gets the same:
//
//	m, err := props.Attach(model, map[string]any{"n": 4},
//		props.Property{Kind: props.Invariant, Expr: `count(procs, .status == "chosen") <= 1`})
//	res, err := explorer.Check(m, explorer.Config{})
//
// # Scope
//
// An expression reads:
//   - procs: one entry per process, in order; each has the process's
//     variables under the names traces print (p1.status reads as
//     procs[0].status), and id, the process's number from 1;
//   - chans: one entry per channel, each with from and to (process numbers
//     from 1), port (its port name, or ""; automaton.Chan) and msgs, its messages, head first for a FIFO channel and
//     in a canonical order for a bag; a message that is a struct has its
//     fields under the names traces print, and one whose type implements
//     automaton.Fielder the fields it names, with text, its printed form
//     (a message printed by String without Fielder is that string);
//   - the spec's parameters (n, ...), with a dash in a name written as an
//     underscore;
//   - for --action, old and new instead of procs and chans: each holds
//     procs and chans, of the state before the step and after it.
//
// Values are integers, strings (an enumeration reads as the word traces
// print, such as "chosen"), booleans and lists; expr's operators and
// builtins (count, all, any, one, none, filter, map, len, sum, max, min,
// in, ...) apply. Each expression is compiled once; a process's value is
// made once for each value the process takes (as far as the model's cache
// remembers), not for every state.
package props

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/internal/input"
	"github.com/vacheck/vacheck/properties"
)

// Kind is the kind of a property written as an expression. The zero value
// is invalid.
type Kind uint8

const (
	// Invariant holds when every reachable state satisfies the expression.
	Invariant Kind = 1 + iota
	// Reach holds when some reachable state satisfies it; the search
	// reports a shortest path to one, and one that explores every state
	// without meeting it reports a violation.
	Reach
	// Eventually holds when every fair execution reaches a state that
	// satisfies it.
	Eventually
	// LeadsTo is "P ~> Q": from every state that satisfies P, every fair
	// execution reaches one that satisfies Q.
	LeadsTo
	// Stable holds when every fair execution reaches a point after which
	// every state satisfies it (eventually always).
	Stable
	// Action holds when every transition satisfies it, an expression over
	// old and new, the states before and after the transition.
	Action
	// Constraint is not a property but a state constraint, like TLC's:
	// the search explores the states that satisfy it (and the model's own
	// constraint, if it has one); a state that does not is checked
	// against the properties, not expanded, and counted apart
	// (explorer.Result.Cut), and a run that cut a state is bounded
	// (automaton.Config.Constraint says how it counts).
	Constraint
)

// kinds lists the kinds with their flags and what they say.
var kinds = []struct {
	flag, doc string
	kind      properties.Kind
}{
	Invariant:  {"invariant", "holds in every reachable state", properties.Invariant},
	Reach:      {"reach", "holds in some reachable state", properties.Reachable},
	Eventually: {"eventually", "every fair execution reaches a state where it holds", properties.Eventually},
	LeadsTo:    {"leads-to", "from every state where the left side holds, every fair execution reaches one where the right side holds", properties.Eventually},
	Stable:     {"stable", "every fair execution reaches a point after which it holds forever", properties.Stable},
	Action:     {"action", "every step, from old to new, satisfies it", properties.Action},
	Constraint: {"constraint", "the search explores only the states that satisfy it", 0},
}

// Flag returns the command-line flag of the kind, without dashes:
// "invariant", "leads-to".
func (k Kind) Flag() string {
	if k == 0 || int(k) >= len(kinds) {
		return fmt.Sprintf("Kind(%d)", uint8(k))
	}
	return kinds[k].flag
}

func (k Kind) String() string { return k.Flag() }

// Kinds returns every kind, in the order of the flags' help.
func Kinds() []Kind { return []Kind{Invariant, Reach, Eventually, LeadsTo, Stable, Action, Constraint} }

// Property is a property written as an expression. Its name in results is
// Expr itself; a Constraint is not reported as a result, but in the run's
// figures of states cut (explorer.Result.Cut).
type Property struct {
	Kind Kind
	Expr string
}

// Error is an expression that cannot be compiled: it names the flag, the
// expression, where in it the mistake is (a column from 1, or 0), and,
// for an unknown name, the closest known one.
type Error struct {
	Kind    Kind
	Expr    string
	Column  int
	Message string
	// Unknown is the unknown name the expression uses, if that is the
	// mistake, and Suggestion the known name closest to it, or "".
	Unknown, Suggestion string
	// Known lists the names the expression may use where Unknown stands.
	Known []string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "--%s %q: ", e.Kind.Flag(), e.Expr)
	if e.Column > 0 {
		fmt.Fprintf(&b, "column %d: ", e.Column)
	}
	b.WriteString(e.Message)
	if e.Suggestion != "" {
		fmt.Fprintf(&b, "; did you mean %q?", e.Suggestion)
	}
	if len(e.Known) > 0 {
		fmt.Fprintf(&b, " (known here: %s)", strings.Join(e.Known, ", "))
	}
	return b.String()
}

// ErrNotObservable reports a model whose states expressions cannot read.
var ErrNotObservable = errors.New("props: the model does not let expressions read its states (it is not an explorer.Observable, as automaton.System is)")

// Attach returns m checking the properties ps besides its own: the model
// m.Observe returns with what Compile made of them.
func Attach(m explorer.Model, params map[string]any, ps ...Property) (explorer.Model, error) {
	om, ok := m.(explorer.Observable)
	if !ok {
		return nil, ErrNotObservable
	}
	o, err := Compile(om.Layout(), params, ps...)
	if err != nil {
		return nil, err
	}
	return om.Observe(o)
}

// Compile compiles ps against states of layout l, with params (the spec's
// parameters, by name) in scope, into an Observation. A mistake in an
// expression is an *Error.
func Compile(l explorer.Layout, params map[string]any, ps ...Property) (*explorer.Observation, error) {
	sc := newScope(l, params)
	o := &explorer.Observation{Proc: sc.proc, Msg: func(m any) any { return m }}
	seen := map[string]bool{}
	for _, p := range ps {
		if p.Kind == 0 || int(p.Kind) >= len(kinds) {
			return nil, fmt.Errorf("props: %q has an invalid kind %d", p.Expr, p.Kind)
		}
		if seen[p.Expr] {
			return nil, &Error{Kind: p.Kind, Expr: p.Expr, Message: "the same expression is given twice; each names its property in the results, so give it once"}
		}
		seen[p.Expr] = true
		info := properties.Info{Name: p.Expr, Kind: kinds[p.Kind].kind, Doc: "--" + p.Kind.Flag() + ": " + kinds[p.Kind].doc}
		switch p.Kind {
		case Invariant, Reach:
			e, err := sc.compile(p.Kind, p.Expr, p.Expr, 0, false)
			if err != nil {
				return nil, err
			}
			o.Invariants = append(o.Invariants, explorer.StatePredicate{Info: info, Holds: e.state, ProcsOnly: !e.chans})
		case Eventually, Stable:
			e, err := sc.compile(p.Kind, p.Expr, p.Expr, 0, false)
			if err != nil {
				return nil, err
			}
			o.Liveness = append(o.Liveness, explorer.LivePredicate{Info: info, Goal: e.state})
		case LeadsTo:
			k := arrow(p.Expr)
			if k < 0 {
				return nil, &Error{Kind: p.Kind, Expr: p.Expr, Message: `a leads-to property is written "P ~> Q": no ~> found`}
			}
			when, err := sc.compile(p.Kind, p.Expr, p.Expr[:k], 0, false)
			if err != nil {
				return nil, err
			}
			goal, err := sc.compile(p.Kind, p.Expr, p.Expr[k+2:], k+2, false)
			if err != nil {
				return nil, err
			}
			o.Liveness = append(o.Liveness, explorer.LivePredicate{Info: info, When: when.state, Goal: goal.state})
		case Action:
			e, err := sc.compile(p.Kind, p.Expr, p.Expr, 0, true)
			if err != nil {
				return nil, err
			}
			o.Actions = append(o.Actions, explorer.ActionPredicate{Info: info, Holds: e.action})
		case Constraint:
			e, err := sc.compile(p.Kind, p.Expr, p.Expr, 0, false)
			if err != nil {
				return nil, err
			}
			info.Doc = "--constraint " + strconv.Quote(p.Expr)
			o.Constraints = append(o.Constraints, explorer.StatePredicate{Info: info, Holds: e.state, ProcsOnly: !e.chans})
		}
	}
	return o, nil
}

// arrow returns the index of the first "~>" of s outside string literals,
// or -1.
func arrow(s string) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '~' && i+1 < len(s) && s[i+1] == '>':
			return i
		}
	}
	return -1
}

// scope is what expressions over states of one layout read, with the
// pool of environments their evaluations use.
type scope struct {
	l      explorer.Layout
	params map[string]any
	pool   sync.Pool // of *env
	// members are the names a member access may use, vars the variables
	// of a process (with id), tops the names of the top level.
	members, vars []string
	tops, actTops []string
}

func newScope(l explorer.Layout, params map[string]any) *scope {
	sc := &scope{l: l, params: map[string]any{}}
	for name, v := range params {
		sc.params[strings.ReplaceAll(name, "-", "_")] = plain(v)
	}
	sc.vars = append(append([]string(nil), l.Vars...), "id")
	sc.members = append(append([]string(nil), sc.vars...), "from", "to", "port", "msgs", "procs", "chans")
	sc.members = append(sc.members, l.Fields...)
	for name := range sc.params {
		sc.tops = append(sc.tops, name)
	}
	sort.Strings(sc.tops)
	sc.actTops = append([]string{"old", "new"}, sc.tops...)
	sc.tops = append([]string{"procs", "chans"}, sc.tops...)
	sc.pool.New = func() any { return sc.newEnv() }
	return sc
}

// plain converts a parameter's value to what expressions compare it with.
func plain(v any) any {
	switch x := v.(type) {
	case int8:
		return int(x)
	case int16:
		return int(x)
	case int32:
		return int(x)
	case int64:
		return int(x)
	case uint8:
		return int(x)
	case uint16:
		return int(x)
	case uint32:
		return int(x)
	case uint:
		return int(x)
	case fmt.Stringer:
		return x.String()
	}
	return v
}

// proc is Observation.Proc: a process is a map of its variables and id.
func (sc *scope) proc(i int, vars []any) any {
	m := make(map[string]any, len(vars)+1)
	for k, v := range vars {
		if k < len(sc.l.Vars) {
			m[sc.l.Vars[k]] = v
		}
	}
	m["id"] = i + 1
	return m
}

// env is the environment of one evaluation: the top level of a state
// expression (procs, chans, parameters) or of an action (old, new,
// parameters), kept in a pool and filled for each state.
type env struct {
	vm       vm.VM
	top      map[string]any // procs, chans and the parameters
	procs    []any
	chans    []any            // of chanObjs
	chanObjs []map[string]any // from, to, port, msgs
	act      map[string]any   // old, new and the parameters
	old, new *env
}

func (sc *scope) newEnv() any {
	e := sc.stateEnv()
	e.old, e.new = sc.stateEnv(), sc.stateEnv()
	e.act = map[string]any{"old": e.old.top, "new": e.new.top}
	for k, v := range sc.params {
		e.act[k] = v
	}
	return e
}

func (sc *scope) stateEnv() *env {
	e := &env{top: map[string]any{}, procs: make([]any, sc.l.N)}
	for k, v := range sc.params {
		e.top[k] = v
	}
	e.chans = make([]any, len(sc.l.Chans))
	for c, ch := range sc.l.Chans {
		m := map[string]any{"from": ch.From + 1, "to": ch.To + 1, "port": ch.Port, "msgs": []any{}}
		e.chanObjs = append(e.chanObjs, m)
		e.chans[c] = m
	}
	e.top["procs"], e.top["chans"] = e.procs, e.chans
	return e
}

// fill makes e the environment of st, reading only what the expression
// uses.
func (e *env) fill(st explorer.State, procs, chans bool) {
	if procs {
		for i := range e.procs {
			e.procs[i] = st.Proc(i)
		}
	}
	if chans {
		for c, m := range e.chanObjs {
			m["msgs"] = st.Chan(c)
		}
	}
}

// compiled is one compiled expression.
type compiled struct {
	sc           *scope
	kind         Kind
	whole        string // the flag's value, for errors
	prog         *vm.Program
	procs, chans bool // the expression reads procs, chans
}

// compile compiles src, the part of the flag's value whole that starts at
// offset off, as a boolean expression over a state, or over old and new
// for an action.
func (sc *scope) compile(k Kind, whole, src string, off int, action bool) (*compiled, error) {
	fail := func(col int, msg string) *Error {
		if col > 0 {
			col += off
		}
		return &Error{Kind: k, Expr: whole, Column: col, Message: msg}
	}
	if strings.TrimSpace(src) == "" {
		return nil, fail(0, "empty expression")
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, sc.exprError(k, whole, off, err, action)
	}
	// Member names: expr cannot check them (the values are maps).
	var bad *Error
	c := &compiled{sc: sc, kind: k, whole: whole}
	ast.Walk(&tree.Node, visitor(func(n ast.Node) {
		switch n := n.(type) {
		case *ast.IdentifierNode:
			c.procs = c.procs || n.Value == "procs"
			c.chans = c.chans || n.Value == "chans"
		case *ast.MemberNode:
			s, ok := n.Property.(*ast.StringNode)
			if !ok || bad != nil {
				return
			}
			if action && (s.Value == "procs" || s.Value == "chans") {
				c.procs = c.procs || s.Value == "procs"
				c.chans = c.chans || s.Value == "chans"
			}
			if slices.Contains(sc.members, s.Value) {
				return
			}
			bad = fail(n.Property.Location().From+1, fmt.Sprintf("unknown variable %q", s.Value))
			bad.Unknown, bad.Suggestion, bad.Known = s.Value, input.Suggest(s.Value, sc.vars), sc.vars
			if bad.Suggestion == "" {
				// A field of a message or of a struct (.ts of a REQUEST):
				// then the names known are the members.
				if bad.Suggestion = input.Suggest(s.Value, sc.members); bad.Suggestion != "" {
					bad.Known = nil
					for _, m := range sc.members {
						if !slices.Contains(bad.Known, m) {
							bad.Known = append(bad.Known, m)
						}
					}
				}
			}
		}
	}))
	if bad != nil {
		return nil, bad
	}
	sample := sc.pool.Get().(*env)
	defer sc.pool.Put(sample)
	top := sample.top
	if action {
		top = sample.act
	}
	c.prog, err = expr.Compile(src, expr.Env(top), expr.AsBool(), expr.Patch(fieldPatcher{}))
	if err != nil {
		return nil, sc.exprError(k, whole, off, err, action)
	}
	return c, nil
}

// exprError turns an error of expr into an *Error with the column in the
// flag's value and, for an unknown name, the closest known one.
func (sc *scope) exprError(k Kind, whole string, off int, err error, action bool) *Error {
	e := &Error{Kind: k, Expr: whole, Message: err.Error()}
	var fe *file.Error
	if errors.As(err, &fe) {
		e.Message = fe.Message
		e.Column = fe.Column + 1 + off
	}
	tops := sc.tops
	if action {
		tops = sc.actTops
	}
	if name, ok := strings.CutPrefix(e.Message, "unknown name "); ok {
		e.Message = fmt.Sprintf("unknown name %q", name)
		e.Unknown, e.Suggestion, e.Known = name, input.Suggest(name, tops), tops
		if e.Suggestion == "" && slices.Contains(sc.vars, name) {
			e.Message += fmt.Sprintf(" (a process's variable: write procs[i].%s, or .%s inside count(procs, ...))", name, name)
			e.Known = nil
		}
	}
	return e
}

// state evaluates the expression in st.
func (c *compiled) state(st explorer.State) (bool, error) {
	e := c.sc.pool.Get().(*env)
	e.fill(st, c.procs, c.chans)
	out, err := e.vm.Run(c.prog, e.top)
	c.sc.pool.Put(e)
	return c.result(out, err)
}

// action evaluates the expression on the transition from old to new.
func (c *compiled) action(old, new explorer.State) (bool, error) {
	e := c.sc.pool.Get().(*env)
	e.old.fill(old, c.procs, c.chans)
	e.new.fill(new, c.procs, c.chans)
	out, err := e.vm.Run(c.prog, e.act)
	c.sc.pool.Put(e)
	return c.result(out, err)
}

func (c *compiled) result(out any, err error) (bool, error) {
	if err != nil {
		return false, fmt.Errorf("--%s %q failed in this state: %w", c.kind.Flag(), c.whole, err)
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("--%s %q gave %v (%T), not a boolean", c.kind.Flag(), c.whole, out, out)
	}
	return b, nil
}

// fieldPatcher rewrites every member access by name, x.name, into a call
// get(x, "name"): the values are maps, which expr reads by reflection
// (and an allocation for each value read), while get reads them as Go
// maps. Optional accesses (x?.name) are left to expr.
type fieldPatcher struct{}

func (fieldPatcher) Visit(node *ast.Node) {
	n, ok := (*node).(*ast.MemberNode)
	if !ok || n.Optional || n.Method {
		return
	}
	s, ok := n.Property.(*ast.StringNode)
	if !ok {
		return
	}
	callee := &ast.ConstantNode{Value: get}
	callee.SetType(reflect.TypeOf(get))
	ast.Patch(node, &ast.CallNode{Callee: callee, Arguments: []ast.Node{n.Node, &ast.StringNode{Value: s.Value}}})
}

// get returns the field name of x, a map. A function of this type, a
// constant of the program, expr calls directly (OpCallTyped), without the
// buffer of arguments it allocates for each evaluation that calls a
// function of expr.Function; it panics on an error, which the evaluation
// returns.
func get(x, name any) any {
	m, ok := x.(map[string]any)
	if !ok {
		panic(fmt.Sprintf("cannot read .%s of %s", name, describe(x)))
	}
	v, ok := m[name.(string)]
	if !ok {
		panic(fmt.Sprintf("no variable %q here", name))
	}
	return v
}

// describe says what kind of value x is, for errors.
func describe(x any) string {
	switch x.(type) {
	case nil:
		return "nil"
	case []any:
		return "a list (pick an element first, as in procs[0].status, or use count(procs, .status == ...))"
	case int:
		return "an integer"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("a %T", x)
}

// visitor is an ast.Visitor from a function.
type visitor func(n ast.Node)

func (v visitor) Visit(n *ast.Node) { v(*n) }
