package field

import (
	"regexp"

	"github.com/microcosm-cc/bluemonday"
)

// portalPolicy is bluemonday's user-generated-content policy without the
// attributes that name elements: id (global) and name (on map), with usemap,
// which only refers to a map's name. Stored HTML is shown inside a front end
// whose scripts look elements up by id and name; user content that carried
// them could clobber the page's own (DOM clobbering: an element with id or
// name "config" shadows window.config or document.config). Links to in-page
// anchors (href="#x") are kept but no longer find a target.
func portalPolicy() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowAttrs("dir").Matching(bluemonday.Direction).Globally()
	p.AllowAttrs("lang").Matching(regexp.MustCompile(`[a-zA-Z]{2,20}`)).Globally()
	p.AllowAttrs("title").Matching(bluemonday.Paragraph).Globally()
	p.AllowStandardURLs()

	p.AllowElements("article", "aside", "figure", "section", "summary", "h1", "h2", "h3", "h4", "h5", "h6", "hgroup",
		"br", "div", "hr", "p", "span", "wbr", "abbr", "acronym", "cite", "code", "dfn", "em", "figcaption", "mark", "s",
		"samp", "strong", "sub", "sup", "var", "b", "i", "pre", "small", "strike", "tt", "u", "rp", "rt", "ruby")
	p.AllowAttrs("open").Matching(regexp.MustCompile(`(?i)^(|open)$`)).OnElements("details")
	p.AllowAttrs("cite").OnElements("blockquote", "q")
	p.AllowAttrs("href").OnElements("a", "area")
	p.AllowAttrs("alt").Matching(bluemonday.Paragraph).OnElements("area")
	p.AllowAttrs("coords").Matching(regexp.MustCompile(`^([0-9]+,)+[0-9]+$`)).OnElements("area")
	p.AllowAttrs("rel").Matching(bluemonday.SpaceSeparatedTokens).OnElements("area")
	p.AllowAttrs("shape").Matching(regexp.MustCompile(`(?i)^(default|circle|rect|poly)$`)).OnElements("area")
	p.AllowAttrs("datetime").Matching(bluemonday.ISO8601).OnElements("time", "del", "ins")
	p.AllowAttrs("dir").Matching(bluemonday.Direction).OnElements("bdi", "bdo")
	p.AllowAttrs("cite").Matching(bluemonday.Paragraph).OnElements("del", "ins")
	p.AllowLists()
	p.AllowTables()
	p.AllowAttrs("value", "min", "max", "low", "high", "optimum").Matching(bluemonday.Number).OnElements("meter")
	p.AllowAttrs("value", "max").Matching(bluemonday.Number).OnElements("progress")
	p.AllowImages()
	return p
}
