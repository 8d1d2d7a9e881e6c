package export

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEscapeText(t *testing.T) {
	for in, want := range map[string]string{
		"plain":              "plain",
		"a\nb\rc\td":         `a\nb\rc\td`,
		"x\u0085y":           `x\u0085y`,
		"x\u2028y\u2029z":    `x\u2028y\u2029z`,
		"v\vf\fz":            `v\u000bf\u000cz`,
		"\x00\x1b\x7f\u009f": `\u0000\u001b\u007f\u009f`,
		`C:\temp\n`:          `C:\\temp\\n`,
		"é ü 日本":             "é ü 日本",
	} {
		if got := EscapeText(in); got != want {
			t.Errorf("EscapeText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEscapeControlsJSON: JSON text keeps its backslashes and stays valid
// JSON with the same value, with no character left that breaks a line.
func TestEscapeControlsJSON(t *testing.T) {
	in := "login\u0085forged\u2028\u2029 \\ \"q\" \n\x01\u0080"
	raw, _ := json.Marshal(in)
	got := EscapeControls(string(raw))
	if strings.ContainsFunc(got, Breaks) {
		t.Fatalf("raw break left in %q", got)
	}
	var back string
	if err := json.Unmarshal([]byte(got), &back); err != nil || back != in {
		t.Fatalf("round trip %q: %v %q", got, err, back)
	}
	if got := EscapeControls(`C:\temp` + "\u0085"); got != `C:\temp\u0085` {
		t.Fatalf("EscapeControls keeps backslashes: %q", got)
	}
}
