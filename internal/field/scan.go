package field

import "encoding/json"

// Columns are the columns ScanDef reads first, in order, from a field table
// whose owner column is owner (list_id, library_id).
func Columns(owner string) string {
	return "id, " + owner + ", internal_name, title, field_type, is_required, sort_order, settings"
}

// ScanDef reads a field definition row of Columns followed by extra
// destinations (columns that only one owner's table has); unreadable
// settings leave the zero settings.
func ScanDef(r interface{ Scan(dest ...any) error }, extra func(*Def) []any) (*Def, error) {
	var f Def
	var settings string
	dest := []any{&f.ID, &f.ListID, &f.InternalName, &f.Title, &f.Type, &f.Required, &f.SortOrder, &settings}
	if extra != nil {
		dest = append(dest, extra(&f)...)
	}
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	_ = json.Unmarshal([]byte(settings), &f.Settings)
	return &f, nil
}
