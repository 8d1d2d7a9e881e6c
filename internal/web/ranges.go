package web

import (
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxRanges is the most byte ranges one answer carries: a Range header that
// still names more after coalescing is answered 200 with the whole content
// (RFC 9110 14.2 lets a server ignore such a header).
const MaxRanges = 16

// partOverhead is a generous estimate of the bytes one part of a
// multipart/byteranges answer adds besides its content type: boundary line,
// Content-Type and Content-Range headers, blank lines.
const partOverhead = 128

// ByteRange is a satisfiable range of a representation: Start and the
// inclusive End, both within the size.
type ByteRange struct{ Start, End int64 }

// Len is the number of bytes of the range.
func (b ByteRange) Len() int64 { return b.End - b.Start + 1 }

// RangeOutcome says how a Range header is answered.
type RangeOutcome int

const (
	// RangeWhole: no Range, an unparsable one (RFC 9110 14.2: ignored) or one
	// that costs more than the whole content: 200 with everything.
	RangeWhole RangeOutcome = iota
	// RangePartial: 206 with Ranges.
	RangePartial
	// RangeUnsatisfiable: no range of the set is satisfiable (a start at or
	// past the end, a zero-length suffix bytes=-0): 416 with
	// Content-Range: bytes */size.
	RangeUnsatisfiable
)

// RangePlan is the answer decided for a Range header.
type RangePlan struct {
	Outcome RangeOutcome
	Ranges  []ByteRange // RangePartial only: coalesced, in the order asked
}

// PlanRanges decides how to answer a Range header for content of size
// bytes. Overlapping and adjacent ranges are coalesced into one (kept at
// the place of the first of them, RFC 9110 15.3.7.2); more than MaxRanges
// ranges after that, or several whose multipart answer would be larger than
// the content itself, give RangeWhole.
func PlanRanges(header string, size int64) RangePlan {
	if header == "" {
		return RangePlan{Outcome: RangeWhole}
	}
	unit, set, ok := strings.Cut(header, "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		return RangePlan{Outcome: RangeWhole}
	}
	var asked []ByteRange
	for spec := range strings.SplitSeq(set, ",") {
		r, valid, satisfiable := parseRangeSpec(strings.TrimSpace(spec), size)
		if !valid {
			return RangePlan{Outcome: RangeWhole}
		}
		if satisfiable {
			asked = append(asked, r)
		}
	}
	if len(asked) == 0 {
		return RangePlan{Outcome: RangeUnsatisfiable}
	}
	ranges := coalesce(asked)
	if len(ranges) > MaxRanges {
		return RangePlan{Outcome: RangeWhole}
	}
	if len(ranges) > 1 {
		total := int64(0)
		for _, r := range ranges {
			total += r.Len() + partOverhead
		}
		if total >= size {
			return RangePlan{Outcome: RangeWhole}
		}
	}
	return RangePlan{Outcome: RangePartial, Ranges: ranges}
}

// parseRangeSpec reads one range-spec (RFC 9110 14.1.1): "first-last" with
// first <= last, "first-" or "-suffix". valid is false for bad syntax;
// satisfiable is false for a range that selects no byte of size.
func parseRangeSpec(spec string, size int64) (r ByteRange, valid, satisfiable bool) {
	first, last, ok := strings.Cut(spec, "-")
	if !ok {
		return r, false, false
	}
	if first == "" { // suffix
		n, ok := rangeNumber(last)
		if !ok {
			return r, false, false
		}
		if n == 0 || size == 0 {
			return r, true, false
		}
		return ByteRange{Start: size - min(n, size), End: size - 1}, true, true
	}
	a, ok := rangeNumber(first)
	if !ok {
		return r, false, false
	}
	end := int64(math.MaxInt64)
	if last != "" {
		b, ok := rangeNumber(last)
		if !ok || b < a {
			return r, false, false
		}
		end = b
	}
	if a >= size {
		return r, true, false
	}
	return ByteRange{Start: a, End: min(end, size-1)}, true, true
}

// rangeNumber reads 1*DIGIT; a number too large for int64 counts as the
// largest one (it is past any end anyway).
func rangeNumber(s string) (int64, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return math.MaxInt64, true
	}
	return n, true
}

// coalesce merges overlapping and adjacent ranges; each merged range takes
// the place of the earliest range it contains.
func coalesce(asked []ByteRange) []ByteRange {
	type item struct {
		r     ByteRange
		order int
	}
	items := make([]item, len(asked))
	for i, r := range asked {
		items[i] = item{r, i}
	}
	slices.SortFunc(items, func(a, b item) int {
		if a.r.Start != b.r.Start {
			return compareInt64(a.r.Start, b.r.Start)
		}
		return a.order - b.order
	})
	merged := []item{items[0]}
	for _, it := range items[1:] {
		cur := &merged[len(merged)-1]
		if it.r.Start <= cur.r.End || it.r.Start-cur.r.End == 1 {
			cur.r.End = max(cur.r.End, it.r.End)
			cur.order = min(cur.order, it.order)
			continue
		}
		merged = append(merged, it)
	}
	slices.SortFunc(merged, func(a, b item) int { return a.order - b.order })
	out := make([]ByteRange, len(merged))
	for i, m := range merged {
		out[i] = m.r
	}
	return out
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Header renders ranges as a Range header value.
func rangeHeader(ranges []ByteRange) string {
	var sb strings.Builder
	sb.WriteString("bytes=")
	for i, r := range ranges {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.FormatInt(r.Start, 10))
		sb.WriteByte('-')
		sb.WriteString(strconv.FormatInt(r.End, 10))
	}
	return sb.String()
}

// ServeContent is the one way downloads serve bytes: http.ServeContent
// (conditional requests, HEAD, If-Range, Accept-Ranges) with the Range
// header first reduced by PlanRanges, so an answer never carries more bytes
// than about the content itself. size is the length of content; the
// caller sets Content-Type and the other headers first.
//
// When content can open itself ahead (Prepare, as blob.RangeReader does), a
// GET opens it at the first byte it will send before any header is written,
// so a store that cannot be reached answers its error (503) instead of a 200
// whose body breaks off.
func ServeContent(w http.ResponseWriter, r *http.Request, modified time.Time, content io.ReadSeeker, size int64) {
	first := int64(0)
	if h := r.Header.Get("Range"); h != "" {
		r = r.Clone(r.Context())
		plan := PlanRanges(h, size)
		switch plan.Outcome {
		case RangeWhole:
			r.Header.Del("Range")
		case RangeUnsatisfiable:
			// a start at the end: http.ServeContent answers 416 with
			// Content-Range: bytes */size after the preconditions
			r.Header.Set("Range", "bytes="+strconv.FormatInt(size, 10)+"-")
		case RangePartial:
			r.Header.Set("Range", rangeHeader(plan.Ranges))
			first = plan.Ranges[0].Start
		}
	}
	if p, ok := content.(interface{ Prepare(offset int64) error }); ok && r.Method == http.MethodGet {
		if err := p.Prepare(first); err != nil {
			WriteError(w, r, err)
			return
		}
	}
	http.ServeContent(w, r, "", modified, content)
}
