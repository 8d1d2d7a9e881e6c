package field

import (
	"strings"
	"testing"

	"github.com/microcosm-cc/bluemonday"
)

// TestPolicyDropsIDAndName: element names (id, name, usemap) are removed
// everywhere, and everything else is sanitised exactly as bluemonday's
// user-generated-content policy does.
func TestPolicyDropsIDAndName(t *testing.T) {
	for _, in := range []string{
		`<p id="config">x</p>`, `<a href="#top" id="top" name="top">top</a>`, `<img src="/a.png" name="x" id="y" usemap="#m">`,
		`<map name="m"><area href="/b" alt="b" coords="1,2,3" shape="rect"></map>`, `<form id="f" name="f"><input name="attributes"></form>`,
		`<dfn id="term">term</dfn>`, `<table><tr><td id="c" headers="h">1</td></tr></table>`,
	} {
		got := SanitizeHTML(in)
		for _, attr := range []string{"id=", "name=", "usemap="} {
			if strings.Contains(got, attr) {
				t.Errorf("SanitizeHTML(%q) = %q keeps %s", in, got, attr)
			}
		}
	}
	ugc := bluemonday.UGCPolicy()
	for _, in := range []string{
		`<h1 title="t" lang="en" dir="rtl">T</h1><p>a <b>b</b> <i>i</i> <u>u</u> <s>s</s> <code>c</code></p>`,
		`<a href="https://example.com/x" rel="me">l</a> <a href="javascript:alert(1)">j</a> <a href="/rel">r</a>`,
		`<img src="https://example.com/i.png" alt="a" width="10" height="20" onerror="x()">`,
		`<table><thead><tr><th scope="col" colspan="2">h</th></tr></thead><tbody><tr><td rowspan="1">d</td></tr></tbody></table>`,
		`<ul><li>1</li></ul><ol start="3" type="a"><li value="4">x</li></ol><dl><dt>t</dt><dd>d</dd></dl>`,
		`<blockquote cite="https://example.com">q</blockquote><q cite="/c">q</q><time datetime="2020-01-02T03:04:05Z">t</time>`,
		`<details open><summary>s</summary>d</details><del datetime="2020-01-02" cite="why">x</del><ins>y</ins>`,
		`<bdo dir="ltr">b</bdo><ruby>r<rt>t</rt></ruby><meter value="1" min="0" max="2">m</meter><progress value="1" max="2"></progress>`,
		`<script>alert(1)</script><style>p{}</style><iframe src="/x"></iframe><p style="color:red" onclick="x()" class="c">p</p>`,
		`<area href="/b" alt="b" coords="1,2,3" shape="rect" rel="x">`, `<div><span>s</span><hr><br><wbr></div><pre>p</pre>`,
	} {
		if got, want := SanitizeHTML(in), ugc.Sanitize(in); got != want {
			t.Errorf("SanitizeHTML(%q) = %q, the UGC policy gives %q", in, got, want)
		}
	}
}
