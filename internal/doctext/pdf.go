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
	pages := min(rd.NumPage(), lim.MaxPages)
	for i := 1; i <= pages; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := rd.Page(i)
		if p.V.IsNull() || p.V.Key("Contents").IsNull() {
			continue
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
