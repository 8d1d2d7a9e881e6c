// Package export holds rules shared by the file exports (survey XLSX,
// audit log CSV): text written into a cell that a spreadsheet opens.
package export

// Neutralise prefixes text that a spreadsheet would read as a formula
// (starting with = + - @, tab or CR) with an apostrophe, so that exported
// user-controlled text is always shown as text (CSV/formula injection).
func Neutralise(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}
