package search

import (
	"html"
	"strings"
	"unicode"

	"github.com/kljensen/snowball"
	"github.com/microcosm-cc/bluemonday"
)

// fold lower-cases s and folds ё to е, so that both are found by either.
func fold(s string) string { return yo.Replace(strings.ToLower(s)) }

// yo folds ё to е (built once: a Replacer per call was a tenth of a search's CPU time).
var yo = strings.NewReplacer("ё", "е")

// words splits folded text into its words (runs of letters and digits).
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// stem reduces a folded word with the Snowball stemmer of its script:
// Cyrillic words with the russian one, others with the english one (as the
// russian PostgreSQL configuration does for ASCII words).
func stem(w string) string {
	lang := "english"
	for _, r := range w {
		if unicode.Is(unicode.Cyrillic, r) {
			lang = "russian"
			break
		}
	}
	s, err := snowball.Stem(w, lang, true)
	if err != nil || s == "" {
		return w
	}
	return s
}

// tokens is the space-separated stemmed text SQLite's FTS5 table indexes.
func tokens(s string) string {
	ws := words(fold(s))
	for i, w := range ws {
		ws[i] = stem(w)
	}
	return strings.Join(ws, " ")
}

// pgText is the text PostgreSQL's to_tsvector reads: folded and split into
// words exactly as SQLite's tokens and the query parser split them. Left to
// itself the PostgreSQL parser keeps budget.xlsx, node.js, user@example.com,
// 3.14159 and foo/bar as single tokens, so none of their parts (nor the
// whole, once the query parser has split it) would be found.
func pgText(s string) string { return strings.Join(words(fold(s)), " ") }

// maxTerms bounds the work one query may ask for.
const maxTerms = 16

// term is one part of a query: a word, a prefix (contr*) or a phrase ("…").
type term struct {
	words  []string // folded words
	prefix bool
	phrase bool
}

// parseQuery reads q: words, "quoted phrases" and prefixes ending in *.
// Every term must match (AND). Punctuation is ignored.
func parseQuery(q string) []term {
	var out []term
	q = fold(q)
	for len(q) > 0 && len(out) < maxTerms {
		q = strings.TrimLeftFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '"' })
		if q == "" {
			break
		}
		if q[0] == '"' {
			end := strings.IndexByte(q[1:], '"')
			var inner string
			if end < 0 {
				inner, q = q[1:], ""
			} else {
				inner, q = q[1:1+end], q[2+end:]
			}
			if ws := words(inner); len(ws) == 1 {
				out = append(out, term{words: ws})
			} else if len(ws) > 1 {
				out = append(out, term{words: ws, phrase: true})
			}
			continue
		}
		end := strings.IndexFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if end < 0 {
			end = len(q)
		}
		w := q[:end]
		q = q[end:]
		t := term{words: []string{w}}
		if strings.HasPrefix(q, "*") {
			t.prefix = true
		}
		out = append(out, t)
	}
	return out
}

// ftsMatch is the FTS5 MATCH expression of terms (stems quoted, so no query
// syntax of the user reaches FTS5).
func ftsMatch(terms []term) string {
	parts := make([]string, 0, len(terms))
	for _, t := range terms {
		switch {
		case t.prefix:
			parts = append(parts, `"`+t.words[0]+`"*`)
		default:
			st := make([]string, len(t.words))
			for i, w := range t.words {
				st[i] = stem(w)
			}
			parts = append(parts, `"`+strings.Join(st, " ")+`"`)
		}
	}
	return strings.Join(parts, " AND ")
}

// matcher tells whether a folded word of a document matches a query term.
// It remembers its answers: a page's snippets stem the same words again and
// again (stemming was a fifth of the CPU time of a search).
type matcher struct {
	stems    map[string]bool
	prefixes []string
	known    map[string]bool
}

func newMatcher(terms []term) matcher {
	m := matcher{stems: map[string]bool{}, known: map[string]bool{}}
	for _, t := range terms {
		for _, w := range t.words {
			if t.prefix {
				m.prefixes = append(m.prefixes, w)
			} else {
				m.stems[stem(w)] = true
			}
		}
	}
	return m
}

func (m matcher) match(folded string) bool {
	if v, ok := m.known[folded]; ok {
		return v
	}
	v := m.stems[stem(folded)]
	for _, p := range m.prefixes {
		v = v || strings.HasPrefix(folded, p)
	}
	m.known[folded] = v
	return v
}

// snippetWords is the length of a snippet in words.
const snippetWords = 30

// snippet is a window of text around the first match, HTML-escaped, with the
// matching words wrapped in <mark>…</mark>.
func snippet(text string, m matcher) string {
	type span struct{ start, end int }
	var spans []span
	start := -1
	for i, r := range text + " " {
		inWord := unicode.IsLetter(r) || unicode.IsDigit(r)
		if inWord && start < 0 {
			start = i
		} else if !inWord && start >= 0 {
			spans = append(spans, span{start, i})
			start = -1
		}
	}
	if len(spans) == 0 {
		return ""
	}
	first := -1
	for i, s := range spans {
		if m.match(fold(text[s.start:s.end])) {
			first = i
			break
		}
	}
	from := 0
	if first > snippetWords/3 {
		from = first - snippetWords/3
	}
	to := min(len(spans), from+snippetWords)
	var b strings.Builder
	if from > 0 {
		b.WriteString("… ")
	}
	pos := spans[from].start
	for _, s := range spans[from:to] {
		b.WriteString(html.EscapeString(text[pos:s.start]))
		w := text[s.start:s.end]
		if m.match(fold(w)) {
			b.WriteString("<mark>" + html.EscapeString(w) + "</mark>")
		} else {
			b.WriteString(html.EscapeString(w))
		}
		pos = s.end
	}
	if to < len(spans) {
		b.WriteString(" …")
	} else {
		b.WriteString(html.EscapeString(text[pos:]))
	}
	return strings.TrimSpace(b.String())
}

var stripAll = bluemonday.StrictPolicy()

// PlainText is the text of an HTML fragment (tags dropped, entities decoded),
// for indexing page content and HTML fields.
func PlainText(fragment string) string {
	// a space per tag keeps words of adjacent blocks apart
	spaced := strings.ReplaceAll(fragment, "<", " <")
	return strings.Join(strings.Fields(html.UnescapeString(stripAll.Sanitize(spaced))), " ")
}
