package web

// PageQuery is embedded in list inputs.
type PageQuery struct {
	Page  int `query:"page" minimum:"1" maximum:"1000000" default:"1" doc:"page number, from 1"`
	Limit int `query:"limit" minimum:"1" maximum:"500" default:"50" doc:"page size, 1-500"`
}

// Offset is the SQL offset of the page.
func (p PageQuery) Offset() int { return (p.Page - 1) * p.Limit }

// PageMeta is the paging block of meta.
type PageMeta struct {
	Page       int `json:"page"`
	Limit      int `json:"limit"`
	Total      int `json:"total"`
	TotalPages int `json:"totalPages"`
}

// NewPageMeta computes totalPages.
func NewPageMeta(p PageQuery, total int) PageMeta {
	pages := 0
	if p.Limit > 0 {
		pages = (total + p.Limit - 1) / p.Limit
	}
	return PageMeta{Page: p.Page, Limit: p.Limit, Total: total, TotalPages: pages}
}
