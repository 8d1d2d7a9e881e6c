package search

import "strings"

// tsNode is a tsquery as the bitmap count evaluates it: lexemes (optionally
// prefixes) combined with AND and OR. Negation, phrase distance and weights
// are not evaluated on bitmaps (parseTSQuery reports them unsupported and the
// count reads the rows).
type tsNode struct {
	op     tsOp
	lexeme string
	prefix bool
	args   []*tsNode
}

type tsOp int

const (
	tsLexeme tsOp = iota
	tsAnd
	tsOr
)

func (n *tsNode) walk(fn func(*tsNode)) {
	fn(n)
	for _, a := range n.args {
		a.walk(fn)
	}
}

// parseTSQuery parses PostgreSQL's text form of a tsquery ("'a' & ( 'b' |
// 'c':* )"). ok is false for an empty query and for operators the bitmaps do
// not evaluate (!, <->, <N>, weights).
func parseTSQuery(s string) (n *tsNode, ok bool) {
	p := &tsParser{s: s}
	n = p.or()
	p.space()
	if n == nil || p.bad || p.i != len(p.s) {
		return nil, false
	}
	return n, true
}

type tsParser struct {
	s   string
	i   int
	bad bool
}

func (p *tsParser) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *tsParser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *tsParser) or() *tsNode {
	return p.list(tsOr, '|', p.and)
}

func (p *tsParser) and() *tsNode {
	return p.list(tsAnd, '&', p.unary)
}

// list parses operands joined by sep into one node of op.
func (p *tsParser) list(op tsOp, sep byte, operand func() *tsNode) *tsNode {
	first := operand()
	if first == nil {
		return nil
	}
	args := []*tsNode{first}
	for p.peek() == sep {
		p.i++
		a := operand()
		if a == nil {
			return nil
		}
		args = append(args, a)
	}
	if len(args) == 1 {
		return first
	}
	return &tsNode{op: op, args: args}
}

func (p *tsParser) unary() *tsNode {
	switch p.peek() {
	case '(':
		p.i++
		n := p.or()
		if n == nil || p.peek() != ')' {
			p.bad = true
			return nil
		}
		p.i++
		if p.peek() == '<' { // phrase operator after a group
			p.bad = true
			return nil
		}
		return n
	case '\'':
		return p.lexeme()
	default: // '!', '<', end of text
		p.bad = true
		return nil
	}
}

func (p *tsParser) lexeme() *tsNode {
	p.i++ // opening quote
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			p.bad = true
			return nil
		}
		c := p.s[p.i]
		p.i++
		if c == '\\' && p.i < len(p.s) {
			b.WriteByte(p.s[p.i])
			p.i++
			continue
		}
		if c == '\'' {
			if p.i < len(p.s) && p.s[p.i] == '\'' {
				b.WriteByte('\'')
				p.i++
				continue
			}
			break
		}
		b.WriteByte(c)
	}
	n := &tsNode{op: tsLexeme, lexeme: b.String()}
	if p.i < len(p.s) && p.s[p.i] == ':' {
		p.i++
		for p.i < len(p.s) && p.s[p.i] != ' ' && p.s[p.i] != ')' {
			if p.s[p.i] != '*' { // a weight restriction
				p.bad = true
				return nil
			}
			n.prefix = true
			p.i++
		}
	}
	if p.peek() == '<' { // phrase operator
		p.bad = true
		return nil
	}
	return n
}
