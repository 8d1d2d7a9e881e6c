package surveys

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/xuri/excelize/v2"

	"coreportal/internal/export"
)

const exportBatch = 1000

// writeWorkbook writes one sheet: a header row, then one row per response
// (number, respondent and time unless anonymous, one column per question).
// Numbers are numeric cells, dates date cells, everything else text. It uses
// excelize's stream writer and reads responses in batches, so memory stays
// flat whatever the number of responses.
func (s *Service) writeWorkbook(ctx context.Context, sv *Survey, w io.Writer) (int64, error) {
	f := excelize.NewFile()
	defer f.Close()
	const sheet = "Responses"
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return 0, err
	}
	dateFmt, timeFmt := "yyyy-mm-dd", "yyyy-mm-dd hh:mm:ss"
	dateStyle, err := f.NewStyle(&excelize.Style{CustomNumFmt: &dateFmt})
	if err != nil {
		return 0, err
	}
	timeStyle, err := f.NewStyle(&excelize.Style{CustomNumFmt: &timeFmt})
	if err != nil {
		return 0, err
	}
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return 0, err
	}
	anon := sv.Definition.Anonymous
	header := []any{"Response"}
	if !anon {
		header = append(header, "Respondent", "Submitted (UTC)")
	}
	for _, q := range sv.Definition.Questions {
		header = append(header, export.Neutralise(q.Title))
	}
	if err := sw.SetRow("A1", header); err != nil {
		return 0, err
	}
	var n int64
	var after int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		rs, err := s.st.responses(ctx, sv.ID, after, exportBatch)
		if err != nil {
			return n, err
		}
		for _, r := range rs {
			row := make([]any, 0, len(header))
			row = append(row, r.Seq)
			if !anon {
				row = append(row, export.Neutralise(r.Name.String), excelize.Cell{StyleID: timeStyle, Value: r.At.UTC().Truncate(time.Second)})
			}
			byQ := groupValues(r.Values)
			for i := range sv.Definition.Questions {
				row = append(row, cellOf(&sv.Definition.Questions[i], byQ[sv.Definition.Questions[i].ID], dateStyle))
			}
			n++
			cell, _ := excelize.CoordinatesToCellName(1, int(n)+1)
			if err := sw.SetRow(cell, row); err != nil {
				return n, err
			}
			after = r.Seq
		}
		if len(rs) < exportBatch {
			break
		}
	}
	if err := sw.Flush(); err != nil {
		return n, err
	}
	if _, err := f.WriteTo(w); err != nil {
		return n, fmt.Errorf("write xlsx: %w", err)
	}
	return n, nil
}

// cellOf is the cell of one answer: a number, a date or neutralised text.
func cellOf(q *SurveyQuestion, vs []value, dateStyle int) any {
	if len(vs) == 0 {
		return nil
	}
	switch q.Type {
	case TypeNumber:
		if vs[0].Num != nil {
			return *vs[0].Num
		}
	case TypeDate:
		if vs[0].Date != nil {
			if t, err := time.Parse(time.DateOnly, *vs[0].Date); err == nil {
				return excelize.Cell{StyleID: dateStyle, Value: t}
			}
		}
	}
	return export.Neutralise(readable(q, vs))
}
