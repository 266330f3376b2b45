package simulate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Formula is a closed form over the number of processes n, such as
// n*H(n) or n*(n+1)/2, that a simulated sweep draws next to what it
// measured. ParseFormula reads it.
type Formula struct {
	src  string
	root node
}

// FormulaHelp says what ParseFormula accepts, for error messages and help.
const FormulaHelp = "an expression over n with numbers, + - * / ^ (power), parentheses and the functions H (the harmonic number H(n) = 1 + 1/2 + ... + 1/n), ln, log2, sqrt, floor and ceil, e.g. n*H(n) or n*(n+1)/2"

// ParseFormula reads a formula over n: numbers, n, the operators + - * /
// and ^ (power, right-associative, binding tighter than a leading minus),
// parentheses, and the functions H, ln, log2, sqrt, floor and ceil of one
// argument. "·" is read as "*" and N as n, so that a formula can be
// copied from a textbook: N·H(N).
func ParseFormula(s string) (*Formula, error) {
	p := &parser{src: s, in: []rune(s)}
	root, err := p.expr()
	if err == nil {
		p.space()
		if p.pos < len(p.in) {
			err = p.errorf("unexpected %q", string(p.in[p.pos]))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("formula %q: %w; allowed: %s", s, err, FormulaHelp)
	}
	return &Formula{src: strings.TrimSpace(s), root: root}, nil
}

// String returns the formula as it was written.
func (f *Formula) String() string { return f.src }

// Eval returns the formula's value for n; NaN where it is undefined (a
// logarithm of 0, H of a negative number).
func (f *Formula) Eval(n float64) float64 { return f.root.eval(n) }

// node is a node of a formula's syntax tree.
type node interface{ eval(n float64) float64 }

type (
	num   float64
	nvar  struct{}
	neg   struct{ x node }
	binop struct {
		op   rune
		l, r node
	}
	call struct {
		fn string
		x  node
	}
)

func (v num) eval(float64) float64    { return float64(v) }
func (nvar) eval(n float64) float64   { return n }
func (e neg) eval(n float64) float64  { return -e.x.eval(n) }
func (e call) eval(n float64) float64 { return functions[e.fn](e.x.eval(n)) }

func (e binop) eval(n float64) float64 {
	a, b := e.l.eval(n), e.r.eval(n)
	switch e.op {
	case '+':
		return a + b
	case '-':
		return a - b
	case '*':
		return a * b
	case '/':
		return a / b
	}
	return math.Pow(a, b)
}

// functions are the functions a formula may call.
var functions = map[string]func(float64) float64{
	"H":     harmonic,
	"ln":    math.Log,
	"log2":  math.Log2,
	"sqrt":  math.Sqrt,
	"floor": math.Floor,
	"ceil":  math.Ceil,
}

// harmonic is H(x) = 1 + 1/2 + ... + 1/floor(x); NaN for x < 0. Beyond
// 10^5 terms it is ln m + γ + 1/(2m) - 1/(12m²) for m = floor(x), whose
// error is below 1/(120m⁴) (Knuth, TAOCP vol. 1, 1.2.7), far below
// float64's resolution there.
func harmonic(x float64) float64 {
	if x < 0 || math.IsNaN(x) {
		return math.NaN()
	}
	m := math.Floor(x)
	if m > 1e5 {
		const gamma = 0.5772156649015329 // Euler's constant
		return math.Log(m) + gamma + 1/(2*m) - 1/(12*m*m)
	}
	h := 0.0
	for k := m; k >= 1; k-- { // the small terms first
		h += 1 / k
	}
	return h
}

type parser struct {
	src string
	in  []rune
	pos int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("at character %d: %s", p.pos+1, fmt.Sprintf(format, args...))
}

func (p *parser) space() {
	for p.pos < len(p.in) && unicode.IsSpace(p.in[p.pos]) {
		p.pos++
	}
}

// peek returns the next rune after spaces, or 0 at the end.
func (p *parser) peek() rune {
	p.space()
	if p.pos == len(p.in) {
		return 0
	}
	return p.in[p.pos]
}

// expr := term {("+" | "-") term}
func (p *parser) expr() (node, error) {
	l, err := p.term()
	for err == nil {
		op := p.peek()
		if op != '+' && op != '-' {
			return l, nil
		}
		p.pos++
		var r node
		if r, err = p.term(); err == nil {
			l = binop{op, l, r}
		}
	}
	return nil, err
}

// term := unary {("*" | "/") unary}
func (p *parser) term() (node, error) {
	l, err := p.unary()
	for err == nil {
		op := p.peek()
		if op == '·' {
			op = '*'
		}
		if op != '*' && op != '/' {
			return l, nil
		}
		p.pos++
		var r node
		if r, err = p.unary(); err == nil {
			l = binop{op, l, r}
		}
	}
	return nil, err
}

// unary := "-" unary | power
func (p *parser) unary() (node, error) {
	if p.peek() == '-' {
		p.pos++
		x, err := p.unary()
		return neg{x}, err
	}
	return p.power()
}

// power := primary ["^" unary]
func (p *parser) power() (node, error) {
	base, err := p.primary()
	if err != nil || p.peek() != '^' {
		return base, err
	}
	p.pos++
	exp, err := p.unary()
	return binop{'^', base, exp}, err
}

// primary := number | "n" | function "(" expr ")" | "(" expr ")"
func (p *parser) primary() (node, error) {
	c := p.peek()
	switch {
	case c == 0:
		return nil, p.errorf("the formula ends where a number, n, a function or ( was expected")
	case c == '(':
		p.pos++
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, p.errorf("missing )")
		}
		p.pos++
		return x, nil
	case c >= '0' && c <= '9' || c == '.':
		start := p.pos
		for p.pos < len(p.in) && (p.in[p.pos] >= '0' && p.in[p.pos] <= '9' || p.in[p.pos] == '.') {
			p.pos++
		}
		text := string(p.in[start:p.pos])
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			p.pos = start
			return nil, p.errorf("%q is not a number", text)
		}
		return num(v), nil
	case unicode.IsLetter(c):
		start := p.pos
		for p.pos < len(p.in) && (unicode.IsLetter(p.in[p.pos]) || unicode.IsDigit(p.in[p.pos]) || p.in[p.pos] == '_') {
			p.pos++
		}
		word := string(p.in[start:p.pos])
		if word == "n" || word == "N" {
			return nvar{}, nil
		}
		if _, ok := functions[word]; !ok {
			p.pos = start
			return nil, p.errorf("unknown name %q", word)
		}
		if p.peek() != '(' {
			return nil, p.errorf("%s needs an argument in parentheses", word)
		}
		p.pos++
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, p.errorf("missing ) after the argument of %s", word)
		}
		p.pos++
		return call{word, x}, nil
	}
	return nil, p.errorf("unexpected %q", string(c))
}
