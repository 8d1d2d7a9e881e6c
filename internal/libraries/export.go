package libraries

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/sheets"
	"coreportal/internal/sheets/fieldcell"
	"coreportal/internal/web"
)

const exportPage = 500

// FolderExport is a prepared export of a folder's entries.
type FolderExport struct {
	FileName    string
	ContentType string
	write       func(ctx context.Context, w io.Writer) error
}

// ExportFolder prepares the export of one folder's entries (the library
// root without parentId) as CSV or XLSX: the pages of Files with the same
// parentId and sort, so the same rights and order, 500 entries at a time.
// Columns: Name, Path, Type, Size (bytes), Modified, Created, then the
// library's custom fields in order.
func (s *Service) ExportFolder(ctx context.Context, p *auth.Principal, libraryID, parentID, sort, format string) (*FolderExport, error) {
	if format != "csv" && format != "xlsx" {
		return nil, fault.Validation("format", "format must be csv or xlsx")
	}
	q := ListQuery{ParentID: parentID, Sort: sort, Page: web.PageQuery{Page: 1, Limit: exportPage}}
	first, meta, err := s.Files(ctx, p, libraryID, q)
	if err != nil {
		return nil, err
	}
	fields, err := s.Fields(ctx, p, libraryID)
	if err != nil {
		return nil, err
	}
	lib, err := s.Get(ctx, p, libraryID)
	if err != nil {
		return nil, err
	}
	path, err := s.folderPath(ctx, p, libraryID, parentID)
	if err != nil {
		return nil, err
	}
	header := []string{"Name", "Path", "Type", "Size", "Modified", "Created"}
	for _, f := range fields {
		header = append(header, f.Title)
	}
	e := &FolderExport{FileName: lib.Slug + "." + format, ContentType: sheets.ContentType(format)}
	e.write = func(ctx context.Context, w io.Writer) error {
		sw, err := sheets.NewWriter(format, w, "Files", header)
		if err != nil {
			return err
		}
		page := first
		for n := 1; ; n++ {
			for _, f := range page {
				row := []sheets.Cell{{Text: f.Name}, {Text: path + f.Name}, {Text: f.ItemType}, {Kind: sheets.Number, Num: float64(f.FileSize)},
					{Kind: sheets.DateTime, Time: f.UpdatedAt.Truncate(time.Second)}, {Kind: sheets.DateTime, Time: f.CreatedAt.Truncate(time.Second)}}
				if f.ItemType == "folder" {
					row[3] = sheets.Cell{}
				}
				for _, fd := range fields {
					row = append(row, fieldcell.Of(fd.FieldType, f.FieldValues[fd.ID]))
				}
				if err := sw.Row(row); err != nil {
					return err
				}
			}
			if n >= meta.TotalPages || len(page) == 0 {
				break
			}
			q.Page.Page = n + 1
			if page, meta, err = s.Files(ctx, p, libraryID, q); err != nil {
				return fmt.Errorf("export page %d: %w", n+1, err)
			}
		}
		return sw.Close()
	}
	return e, nil
}

// folderPath is "/" and the names of the folders down to parentID, each
// followed by "/".
func (s *Service) folderPath(ctx context.Context, p *auth.Principal, libraryID, parentID string) (string, error) {
	var names []string
	ref := strings.TrimSpace(parentID)
	for i := 0; ref != "" && ref != "0" && i < 100; i++ {
		f, err := s.File(ctx, p, libraryID, ref)
		if err != nil {
			return "", err
		}
		names = append([]string{f.Name}, names...)
		if f.ParentID == nil {
			break
		}
		ref = strconv.FormatInt(*f.ParentID, 10)
	}
	if len(names) == 0 {
		return "/", nil
	}
	return "/" + strings.Join(names, "/") + "/", nil
}

type exportFolderIn struct {
	LibraryParams
	ParentID string `query:"parentId" doc:"folder number or guid; absent = library root"`
	Sort     string `query:"sort" doc:"name (default), size or modified; prefix - for descending"`
	Format   string `query:"format" enum:"xlsx,csv" default:"xlsx"`
}

func (h *Handler) registerExport(api huma.API) {
	o := op(http.MethodGet, "/libraries/{libraryId}/files/export", "exportFolder", "Export a folder's entries to XLSX or CSV",
		"As GET /libraries/{libraryId}/files (view on the folder, or the library at the root; entries the caller cannot view are left out; folders first, then by sort), every page of it as a file download (<library slug>.xlsx or .csv). Columns: Name, Path (the folder's path from the library root, / separated, and the name), Type (file or folder), Size (bytes; empty for folders), Modified and Created (UTC), then the library's custom fields by title, values as a person reads them (as GET /lists/{listId}/items/export writes them). XLSX with typed cells (numbers, date-time cells yyyy-mm-dd hh:mm:ss); CSV UTF-8 with BOM, comma-separated. Text starting with =, +, -, @, tab or CR gets a leading '. The entries are read 500 at a time while the body is written.")
	o.Responses = map[string]*huma.Response{"200": web.FileAnswer("the file", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "text/csv")}
	web.Register(api, o, h.exportFolder)
}

func (h *Handler) exportFolder(ctx context.Context, in *exportFolderIn) (*huma.StreamResponse, error) {
	e, err := h.svc.ExportFolder(ctx, auth.FromContext(ctx), in.LibraryID, in.ParentID, in.Sort, in.Format)
	if err != nil {
		return nil, err
	}
	return &huma.StreamResponse{Body: func(hc huma.Context) {
		hc.SetHeader("Content-Type", e.ContentType)
		hc.SetHeader("Content-Disposition", web.ContentDisposition(e.FileName))
		hc.SetHeader("X-Content-Type-Options", "nosniff")
		if err := e.write(ctx, hc.BodyWriter()); err != nil {
			slog.ErrorContext(ctx, "folder export", "library", in.LibraryID, "err", err)
			panic(http.ErrAbortHandler)
		}
	}}, nil
}
