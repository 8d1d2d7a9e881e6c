package lists

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/web"
)

// MountSheets adds the plain net/http routes of import previews (streamed uploads).
func (h *Handler) MountSheets(mux *http.ServeMux) {
	mux.HandleFunc("POST "+web.Prefix+"/nodes/{nodeId}/lists/import/preview", h.previewUpload(func(ctx context.Context, p *auth.Principal, r *http.Request, name string, body io.Reader) (ImportPreview, error) {
		return h.svc.PreviewNewList(ctx, p, r.PathValue("nodeId"), name, body)
	}))
	mux.HandleFunc("POST "+web.Prefix+"/lists/{listId}/items/import/preview", h.previewUpload(func(ctx context.Context, p *auth.Principal, r *http.Request, name string, body io.Reader) (ImportPreview, error) {
		return h.svc.PreviewIntoList(ctx, p, r.PathValue("listId"), name, body)
	}))
}

type previewFunc func(ctx context.Context, p *auth.Principal, r *http.Request, name string, body io.Reader) (ImportPreview, error)

// previewUpload reads the multipart body and hands part "file" to preview as a stream.
func (h *Handler) previewUpload(preview previewFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := auth.Require(r.Context())
		if err != nil {
			web.WriteError(w, r, err)
			return
		}
		mr, err := r.MultipartReader()
		if err != nil {
			web.WriteError(w, r, fault.Validation("file", "the body must be multipart/form-data with a part named file"))
			return
		}
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				web.WriteError(w, r, fault.Validation("file", "part file is missing"))
				return
			}
			if err != nil {
				web.WriteError(w, r, fault.Validation("file", "the multipart body is malformed"))
				return
			}
			if part.FormName() != "file" {
				part.Close()
				continue
			}
			if err := web.CheckText("file", part.FileName()); err != nil {
				part.Close()
				web.WriteError(w, r, err)
				return
			}
			pv, err := preview(r.Context(), p, r, part.FileName(), web.ClientReader(onlyFile{part, mr}))
			part.Close()
			if err != nil {
				web.WriteError(w, r, err)
				return
			}
			web.WriteJSON(w, http.StatusOK, pv)
			return
		}
	}
}

const previewDoc = " multipart/form-data with one part named file: a CSV (UTF-8 with or without BOM, UTF-16 with BOM, otherwise Windows-1251; the separator , ; or tab is detected from the first lines; quotes as RFC 4180) or an XLSX workbook (the first sheet). The first non-empty row is the header; empty rows are skipped. At most CORE_MAX_UPLOAD_MB (413 PAYLOAD_TOO_LARGE), 1,000,000 rows, 500 columns, 32,767 characters per cell, 4 MB per CSV row; an XLSX may unpack to at most 1 GB (zip bombs are refused): beyond a limit, or for a file that is neither CSV nor XLSX, 400 VALIDATION_ERROR details.field=file. The file is kept for 24 hours under uploadToken, usable by the uploader only. Answers { uploadToken, fileName, file { format csv|xlsx, encoding, separator, sheet }, rows, columns[] { index, header, proposedType, choices, nonEmpty, skip, asTitle, fieldId, problems[] }, sample (first 10 rows, values as they would be stored), problems[], expiresAt }. XLSX cells keep their types (numbers, date cells, booleans); text is read as numbers (1234.5, 1 234,5, 1,234.5), dates (YYYY-MM-DD, DD.MM.YYYY, M/D/YYYY, with a time HH:MM[:SS] or h:mm AM/PM), booleans (yes/no, true/false, да/нет) where every value of the column reads so. SharePoint export columns (ID, Created, Modified, Created By, Modified By, Author, Editor, Item Type, Path, Content Type, Version, Attachments, and their Russian titles) are skip: true with the reason in problems; Title/Название is the title column."

// registerSheets adds the export and import operations.
func (h *Handler) registerSheets(api huma.API) {
	exp := op(http.MethodGet, "/lists/{listId}/items/export", "exportItems", "Export items to XLSX or CSV",
		"View on the list. The items GET /lists/{listId}/items would list with the same viewId, sort/orderBy, filter and q (the same rights: items hidden from the caller are never exported), every page of them, in the listing's order, streamed as a file download (Content-Disposition: attachment; <list slug>.xlsx or .csv). Columns: the view's columns in its order (every field in field order when the view names none), header row of field titles. Values as a person reads them: choices, persons (display names) and lookups (displays; a target hidden from the caller is empty) joined with \"; \", links as their URL, HTML as plain text. XLSX: numbers are numeric cells, dates date cells (yyyy-mm-dd), datetimes and Created/Modified date-time cells (yyyy-mm-dd hh:mm:ss, UTC), booleans boolean cells; at most 1,048,575 items (one sheet; more is 400 VALIDATION_ERROR details.field=format: export as CSV or filter). CSV: UTF-8 with BOM, comma-separated, RFC 4180 quoting, dates YYYY-MM-DD, datetimes YYYY-MM-DD HH:MM:SS UTC, booleans Yes/No. Every text cell starting with =, +, -, @, tab or CR gets a leading ' so that spreadsheets never read it as a formula. Memory stays bounded: the item numbers of the listing are read first, then the items 500 at a time; the body is written while it is read (a failure midway cuts the connection, so a partial file never looks complete). The same 400/404 as the listing for a malformed or unknown viewId, sort or filter.")
	exp.Responses = map[string]*huma.Response{"200": web.FileAnswer("the file", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "text/csv")}
	web.Register(api, exp, h.exportItems)

	web.Register(api, web.Answers(op(http.MethodPost, "/nodes/{nodeId}/lists/import", "importNewList", "Create a list from an uploaded file",
		"Edit on the node (the right to create a list there; 404 unknown node). uploadToken from POST /nodes/{nodeId}/lists/import/preview (the caller's own, within 24 hours; otherwise 400 details.field=uploadToken). Creates the list (title, slug unique per node (409), description) with one field per column chosen: columns[] { index, title (default the header), fieldType (default the proposed one: text, multiline_text, number, date, datetime, boolean, choice, person or link), choices (choice: default the column's distinct values), allowMultiple (choice and person: entries separated by ;), asTitle (fills the title field; at most one), skip }; without columns, the preview's proposal. Without an asTitle column the title field is made optional. Then queues the import of every row (202) and answers the import { id, listId, status: queued, … }; follow it with GET /lists/{listId}/imports/{importId}. Rows are saved as quick edit saves them (POST /lists/{listId}/items/quick-edit): each row on its own, with versions and events; a row with a value that its field cannot take is not saved and is named in the error report."), http.StatusAccepted), h.importNewList)
	web.Register(api, web.Answers(op(http.MethodPost, "/lists/{listId}/items/import", "importItems", "Import an uploaded file into a list",
		"View and add on the list. uploadToken from POST /lists/{listId}/items/import/preview (the caller's own, within 24 hours; otherwise 400 details.field=uploadToken). mapping[] { column (header or 0-based index), fieldId (field UUID or internal name) }; default: columns whose header is a field's title or internal name (case-insensitive; Title/Название is the title field; SharePoint system columns are never mapped). created_by and item_number cannot be written. keyField (a text or number field, or item_number) with keyColumn (default the column mapped to keyField, or ID for item_number) updates the item whose key equals the row's (text compared case-insensitively, numbers as numbers; items hidden from the caller are not matched) instead of creating one; a row whose key no item has creates an item (item_number: is reported as an error); a key several items share is reported and not updated; two rows with the same new key create one item and update it. An empty cell clears the mapped field on update. Each row is saved as quick edit saves it: updates need edit on the item, creates add on the list; required fields are checked (a create must fill every required field, an update keeps the stored values of unmapped fields); versions and events are written as for any save; a row that fails is named in the error report and the others are saved. Values: numbers and dates as in the preview, choice entries separated by ; (SharePoint ;# too), persons by display name, login or e-mail of an active user (one match), lookups by target item number, links as URL or SharePoint \"URL, description\". Queues a job (202) and answers the import { id, status: queued, … }."), http.StatusAccepted), h.importItems)
	web.Register(api, op(http.MethodGet, "/lists/{listId}/imports/{importId}", "importStatus", "Progress of an import",
		"View on the list; the caller's own import (administrators: any). 404 for ids that are not imports of this list. status queued, running (also between two runs of a long import: an import runs in slices of the job lease less 90 s (3.5 minutes by default) and resumes where it stopped, after the queue's retry delay), done or failed (error). rows: data rows of the file; read: rows processed; created, updated, failed (rows not saved); errorCount and the first 20 errors { row (the header is row 1), column (header; empty for the whole row), message }. Progress is saved every 200 rows; a server that stops mid-import resumes from the last checkpoint (every 2,000 rows), so up to 2,000 rows may be saved twice when a worker dies without finishing its slice."), h.importStatus)
	rep := op(http.MethodGet, "/lists/{listId}/imports/{importId}/errors", "importErrors", "Error report of an import (CSV)",
		"As GET /lists/{listId}/imports/{importId}. CSV (UTF-8 with BOM, comma-separated) with the header row,column,message and one line per error, in file order, up to the last checkpoint (all of them once the import is done); at most 100,000 errors. Cells starting with =, +, -, @, tab or CR get a leading '. Kept as long as the import's job (job journal retention).")
	rep.Responses = map[string]*huma.Response{"200": web.FileAnswer("the report", "text/csv")}
	web.Register(api, rep, h.importErrors)

	doc := func(path, id, summary, desc string) {
		o := op(http.MethodPost, path, id, summary, desc)
		o.Responses = map[string]*huma.Response{"200": web.JSONAnswer[ImportPreview](api, "the preview")}
		o.RequestBody = web.MultipartBody("file", "the CSV or XLSX file", nil)
		api.OpenAPI().AddOperation(&o)
	}
	doc("/nodes/{nodeId}/lists/import/preview", "previewListImport", "Preview a new list from a file",
		"Edit on the node (the right to create a list there)."+previewDoc+" choices lists up to 30 distinct values; proposedType is boolean, number, date, datetime or link when every value reads so, multiline_text for line breaks or values over 255 characters, person when every value names exactly one active user (display name, login or e-mail), choice when at most 30 distinct values repeat (at least twice each on average), text otherwise. asTitle marks the column proposed for the title field: Title/Название, else the first text column. fieldId is null.")
	doc("/lists/{listId}/items/import/preview", "previewItemsImport", "Preview an import into a list",
		"View and add on the list."+previewDoc+" Each column is mapped to the field whose title or internal name equals its header (case-insensitive; Title/Название to the title field): fieldId, and proposedType is that field's type; unmapped columns are skip: true. Every value is read as its field's type and the first 1,000 rows are validated as a save would validate them (choices, persons, lookups, lengths); problems name the failing rows. problems of the file name required fields no column maps to.")
}

type exportIn struct {
	ListPathParams
	Format  string `query:"format" enum:"xlsx,csv" default:"xlsx"`
	ViewID  string `query:"viewId"`
	Sort    string `query:"sort"`
	OrderBy string `query:"orderBy"`
	Filter  string `query:"filter"`
	Q       string `query:"q"`
}

func (h *Handler) exportItems(ctx context.Context, in *exportIn) (*huma.StreamResponse, error) {
	p := auth.FromContext(ctx)
	e, err := h.svc.ExportItems(ctx, p, in.ListID, in.Format, ListParams{ViewID: in.ViewID, Sort: in.Sort, OrderBy: in.OrderBy, Filter: in.Filter, Q: in.Q})
	if err != nil {
		return nil, err
	}
	return &huma.StreamResponse{Body: func(hc huma.Context) {
		hc.SetHeader("Content-Type", e.ContentType)
		hc.SetHeader("Content-Disposition", web.ContentDisposition(e.FileName))
		hc.SetHeader("X-Content-Type-Options", "nosniff")
		if err := e.WriteTo(ctx, hc.BodyWriter()); err != nil {
			slog.ErrorContext(ctx, "list export", "list", in.ListID, "err", err)
			panic(http.ErrAbortHandler) // cut the connection: a partial file must not look complete
		}
	}}, nil
}

type importNewListIn struct {
	NodeID string `path:"nodeId" doc:"node id"`
	Body   NewListImport
}

func (h *Handler) importNewList(ctx context.Context, in *importNewListIn) (*web.Out[ImportStatus], error) {
	return web.ReplyAccepted(h.svc.ImportNewList(ctx, auth.FromContext(ctx), in.NodeID, in.Body))
}

type importItemsIn struct {
	ListPathParams
	Body ItemsImport
}

func (h *Handler) importItems(ctx context.Context, in *importItemsIn) (*web.Out[ImportStatus], error) {
	return web.ReplyAccepted(h.svc.ImportIntoList(ctx, auth.FromContext(ctx), in.ListID, in.Body))
}

type importPathIn struct {
	ListPathParams
	ImportID string `path:"importId" doc:"import id"`
}

func (h *Handler) importStatus(ctx context.Context, in *importPathIn) (*web.Out[ImportStatus], error) {
	return web.Reply(h.svc.ImportState(ctx, auth.FromContext(ctx), in.ListID, in.ImportID))
}

func (h *Handler) importErrors(ctx context.Context, in *importPathIn) (*huma.StreamResponse, error) {
	write, err := h.svc.ImportReport(ctx, auth.FromContext(ctx), in.ListID, in.ImportID)
	if err != nil {
		return nil, err
	}
	return &huma.StreamResponse{Body: func(hc huma.Context) {
		hc.SetHeader("Content-Type", "text/csv; charset=utf-8")
		hc.SetHeader("Content-Disposition", web.ContentDisposition("import-"+in.ImportID+"-errors.csv"))
		if err := write(hc.BodyWriter()); err != nil {
			slog.ErrorContext(ctx, "import report", "import", in.ImportID, "err", err)
			panic(http.ErrAbortHandler)
		}
	}}, nil
}
