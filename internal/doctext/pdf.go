package doctext

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ledongthuc/pdf"
)

// pdfStop carries an error out of the PDF interpreter's callback.
type pdfStop struct{ err error }

// pdfText reads the text-showing operators of the first lim.MaxPages pages.
// The parser reads through the guard (which fails once ctx ends or after
// a read budget) and every interpreter step checks ctx, so a looping
// document stops at its next step; parsing runs in its own goroutine only so
// that the caller gets its answer at the deadline even if the library is
// stuck in a step that neither reads nor calls back.
func pdfText(ctx context.Context, out *text, ra io.ReaderAt, size int64, lim Limits) error {
	done := make(chan error, 1)
	local := newText(out.max)
	go func() { done <- pdfParse(ctx, local, ra, size, lim) }()
	select {
	case err := <-done:
		if werr := out.write(local.String()); werr != nil && err == nil {
			err = werr
		}
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func pdfParse(ctx context.Context, out *text, ra io.ReaderAt, size int64, lim Limits) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if s, ok := r.(pdfStop); ok {
				err = s.err
				return
			}
			if e, ok := r.(error); ok && (errors.Is(e, ErrHostile) || errors.Is(e, context.DeadlineExceeded) || errors.Is(e, context.Canceled)) {
				err = e
				return
			}
			err = fmt.Errorf("%w: %v", ErrMalformed, r)
		}
	}()
	rd, err := pdf.NewReader(ra, size)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	var inflatedPDF int64
	for _, p := range pageList(ctx, rd, lim.MaxPages) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if p.V.Key("Contents").IsNull() {
			continue
		}
		if err := checkContent(ctx, p.V.Key("Contents"), &inflatedPDF, lim.MaxUnzipped); err != nil {
			return err
		}
		pageText(ctx, out, p)
		if err := out.brk(); err != nil {
			return err
		}
	}
	return nil
}

// pageText interprets one page's content stream, writing the strings of
// Tj, TJ, ' and " decoded with the page's fonts; it panics with pdfStop
// when ctx ends or the text is full.
func pageText(ctx context.Context, out *text, p pdf.Page) {
	var enc pdf.TextEncoding
	fonts := map[string]pdf.TextEncoding{}
	show := func(raw string) {
		s := raw
		if enc != nil {
			s = enc.Decode(raw)
		}
		if err := out.write(s); err != nil {
			panic(pdfStop{err})
		}
	}
	steps := 0
	pdf.Interpret(p.V.Key("Contents"), func(stk *pdf.Stack, op string) {
		if steps++; steps%1024 == 0 && ctx.Err() != nil {
			panic(pdfStop{ctx.Err()})
		}
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "BT", "T*", "Td", "TD", "Tm":
			if err := out.write(" "); err != nil {
				panic(pdfStop{err})
			}
		case "Tf":
			if len(args) != 2 {
				return
			}
			name := args[0].Name()
			e, ok := fonts[name]
			if !ok {
				f := p.Font(name)
				e = f.Encoder()
				fonts[name] = e
			}
			enc = e
		case "Tj", "'", "\"":
			if len(args) > 0 {
				show(args[len(args)-1].RawString())
			}
		case "TJ":
			if len(args) != 1 {
				return
			}
			for i := 0; i < args[0].Len(); i++ {
				switch x := args[0].Index(i); x.Kind() {
				case pdf.String:
					show(x.RawString())
				case pdf.Integer, pdf.Real:
					if x.Float64() < -200 { // a gap this wide is a word space
						if err := out.write(" "); err != nil {
							panic(pdfStop{err})
						}
					}
				}
			}
		}
	})
}

// pageList walks the page tree once, depth first, and returns at most max
// pages; it visits at most 4*max+64 tree nodes and 64 levels, so a tree
// that loops back on itself ends too (pdf.Reader.Page walks from the root
// for every page: quadratic on the flat trees most writers produce).
func pageList(ctx context.Context, rd *pdf.Reader, max int) []pdf.Page {
	type node struct {
		v     pdf.Value
		depth int
	}
	var out []pdf.Page
	stack := []node{{rd.Trailer().Key("Root").Key("Pages"), 0}}
	for visits := 0; len(stack) > 0 && len(out) < max && visits < 4*max+64 && ctx.Err() == nil; visits++ {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch n.v.Key("Type").Name() {
		case "Page":
			out = append(out, pdf.Page{V: n.v})
		case "Pages":
			if n.depth >= 64 {
				continue
			}
			kids := n.v.Key("Kids")
			for i := min(kids.Len(), 4*max+64) - 1; i >= 0; i-- {
				stack = append(stack, node{kids.Index(i), n.depth + 1})
			}
		}
	}
	return out
}

// checkContent inflates a page's content streams once, counting the bytes
// against the document's inflation limit, before the interpreter reads them
// (the library inflates without a bound: a small stream may inflate to
// gigabytes).
func checkContent(ctx context.Context, contents pdf.Value, total *int64, max int64) error {
	streams := []pdf.Value{contents}
	if contents.Kind() == pdf.Array {
		streams = streams[:0]
		for i := 0; i < contents.Len(); i++ {
			streams = append(streams, contents.Index(i))
		}
	}
	buf := make([]byte, 64<<10)
	for _, st := range streams {
		rc := st.Reader()
		for {
			if err := ctx.Err(); err != nil {
				rc.Close()
				return err
			}
			n, err := rc.Read(buf)
			if *total += int64(n); *total > max {
				rc.Close()
				return fmt.Errorf("%w: PDF content inflates beyond %d bytes", ErrHostile, max)
			}
			if err != nil {
				rc.Close()
				if errors.Is(err, io.EOF) {
					break
				}
				return fmt.Errorf("%w: content stream: %v", ErrMalformed, err)
			}
		}
	}
	return nil
}
