package web

import (
	"strings"
	"testing"
)

func TestFileNames(t *testing.T) {
	for name, want := range map[string]string{
		"a b.txt":    `attachment; filename="a b.txt"; filename*=UTF-8''a%20b.txt`,
		`q"\x.txt`:   `attachment; filename="q__x.txt"; filename*=UTF-8''q%22%5Cx.txt`,
		"é.txt":      `attachment; filename="_.txt"; filename*=UTF-8''%C3%A9.txt`,
		"a\r\nb.txt": `attachment; filename="ab.txt"; filename*=UTF-8''ab.txt`,
		"日本":         `attachment; filename="__"; filename*=UTF-8''%E6%97%A5%E6%9C%AC`,
	} {
		if got := ContentDisposition(name); got != want {
			t.Errorf("ContentDisposition(%q) = %q, want %q", name, got, want)
		}
	}
	for raw, want := range map[string]string{"../../etc/passwd": "passwd", `C:\dir\f.txt`: "f.txt", "..": "file", "a\r\nb": "ab", "": "file",
		"   ": "file", "c1\u009b31m.txt": "c131m.txt", "a\u0085b.txt": "ab.txt", "rtl\u202egnp.exe": "rtlgnp.exe", "x\u2066y\u2069": "xy", "\u200fok": "\u200fok", `a"b.txt`: `a"b.txt`, strings.Repeat("я", 300) + ".pdf": strings.Repeat("я", MaxFileName-4) + ".pdf"} {
		if got := UploadName(raw); got != want {
			t.Errorf("UploadName(%q) = %q, want %q", raw, got, want)
		}
	}
}
