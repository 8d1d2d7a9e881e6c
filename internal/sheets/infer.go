package sheets

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Proposed field types (the names of internal/field).
const (
	TypeText      = "text"
	TypeMultiline = "multiline_text"
	TypeNumber    = "number"
	TypeDate      = "date"
	TypeDateTime  = "datetime"
	TypeBoolean   = "boolean"
	TypeChoice    = "choice"
	TypePerson    = "person"
	TypeLink      = "link"
)

// MaxChoices is the most distinct values a column may have to be proposed
// as a choice (and the most distinct values kept per column).
const MaxChoices = 30

// Stats gathers what the values of one column say about its type.
type Stats struct {
	NonEmpty   int
	notNumber  bool
	notDate    bool
	notTime    bool
	notBool    bool
	notLink    bool
	hasTime    bool
	multiline  bool
	maxLen     int
	distinct   map[string]int // up to MaxChoices+1 values
	order      []string
	manyValues bool
}

// NewStats starts the statistics of a column.
func NewStats() *Stats { return &Stats{distinct: map[string]int{}} }

// Add counts one cell.
func (s *Stats) Add(c Cell) {
	t := strings.TrimSpace(c.Text)
	if t == "" && c.Kind == Text {
		return
	}
	s.NonEmpty++
	if l := len([]rune(t)); l > s.maxLen {
		s.maxLen = l
	}
	if strings.ContainsAny(t, "\n\r") {
		s.multiline = true
	}
	if _, ok := ParseNumber(c); !ok {
		s.notNumber = true
	}
	if tm, ok := ParseDate(c); !ok {
		s.notDate, s.notTime = true, true
	} else if c.Kind == DateTime || (c.Kind == Text && tm.hasTime) {
		s.hasTime = true
	}
	if _, ok := ParseBool(c); !ok {
		s.notBool = true
	}
	if !IsURL(t) {
		s.notLink = true
	}
	if !s.manyValues {
		if _, ok := s.distinct[t]; !ok {
			if len(s.distinct) > MaxChoices {
				s.manyValues = true
				s.distinct, s.order = nil, nil
				return
			}
			s.order = append(s.order, t)
		}
		s.distinct[t]++
	}
}

// Distinct returns the distinct values in the order met (nil when there are
// more than MaxChoices).
func (s *Stats) Distinct() []string {
	if s.manyValues || len(s.distinct) > MaxChoices {
		return nil
	}
	return s.order
}

// Propose returns the field type the values suggest; persons decides
// whether every distinct value names a user (asked only for text columns
// with few distinct values; nil: never).
func (s *Stats) Propose(persons func([]string) bool) string {
	switch {
	case s.NonEmpty == 0:
		return TypeText
	case !s.notBool:
		return TypeBoolean
	case !s.notNumber:
		return TypeNumber
	case !s.notDate && !s.hasTime:
		return TypeDate
	case !s.notDate:
		return TypeDateTime
	case !s.notLink:
		return TypeLink
	case s.multiline || s.maxLen > 255:
		return TypeMultiline
	}
	d := s.Distinct()
	if d != nil && persons != nil && persons(d) {
		return TypePerson
	}
	// few distinct values repeated: a choice
	if d != nil && len(d) <= MaxChoices && s.NonEmpty >= 2*len(d) && s.maxLen <= 100 {
		return TypeChoice
	}
	return TypeText
}

// ParseNumber reads a number cell or text such as 1234.5, -3, 1 234,5 or 1,234.5.
func ParseNumber(c Cell) (float64, bool) {
	if c.Kind == Number {
		return c.Num, true
	}
	if c.Kind != Text {
		return 0, false
	}
	t := strings.TrimSpace(c.Text)
	if t == "" {
		return 0, false
	}
	t = strings.NewReplacer("\u00a0", "", "\u202f", "", " ", "").Replace(t)
	if strings.Count(t, ",") == 1 && !strings.Contains(t, ".") {
		t = strings.Replace(t, ",", ".", 1) // decimal comma
	} else if strings.Contains(t, ".") {
		t = strings.ReplaceAll(t, ",", "") // thousands commas
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || strings.ContainsAny(t, "xXpP_") || strings.EqualFold(t, "inf") || strings.EqualFold(t, "nan") ||
		strings.Contains(strings.ToLower(t), "inf") {
		return 0, false
	}
	return n, true
}

// When is a parsed date or date and time.
type When struct {
	time.Time
	hasTime bool
}

// HasTime tells a datetime from a date.
func (w When) HasTime() bool { return w.hasTime }

var dateLayouts = []string{"2006-01-02", "02.01.2006", "2.1.2006", "01/02/2006", "1/2/2006"}
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04",
	"02.01.2006 15:04:05", "02.01.2006 15:04", "2.1.2006 15:04", "01/02/2006 15:04:05", "1/2/2006 15:04", "1/2/2006 3:04 PM", "1/2/2006 3:04:05 PM"}

// ParseDate reads a date cell or text in ISO form (2024-01-31, 2024-01-31
// 14:30, RFC 3339), the Russian form (31.01.2024 14:30) or the US form of
// SharePoint exports (1/31/2024 2:30 PM).
func ParseDate(c Cell) (When, bool) {
	switch c.Kind {
	case Date:
		return When{Time: c.Time}, true
	case DateTime:
		return When{Time: c.Time, hasTime: true}, true
	case Text:
	default:
		return When{}, false
	}
	t := strings.TrimSpace(c.Text)
	if len(t) < 6 || len(t) > 40 {
		return When{}, false
	}
	for _, l := range dateLayouts {
		if d, err := time.Parse(l, t); err == nil && d.Year() >= 1 && d.Year() <= 9999 {
			return When{Time: d}, true
		}
	}
	for _, l := range timeLayouts {
		if d, err := time.Parse(l, t); err == nil {
			if u := d.UTC(); u.Year() >= 1 && u.Year() <= 9999 {
				return When{Time: u, hasTime: true}, true
			}
		}
	}
	return When{}, false
}

// ParseBool reads a boolean cell or yes/no, true/false, да/нет (1/0 are numbers).
func ParseBool(c Cell) (bool, bool) {
	if c.Kind == Bool {
		return c.Bool, true
	}
	if c.Kind != Text {
		return false, false
	}
	switch strings.ToLower(strings.TrimSpace(c.Text)) {
	case "yes", "true", "да", "истина":
		return true, true
	case "no", "false", "нет", "ложь":
		return false, true
	}
	return false, false
}

// IsURL reports an absolute http(s) or mailto URL.
func IsURL(s string) bool {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, " \t\n") && !strings.Contains(s, ", ") {
		return false
	}
	s, _, _ = strings.Cut(s, ", ") // SharePoint: "url, description"
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
