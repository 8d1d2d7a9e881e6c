package lists

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
)

// ItemChange is the diff of one field between two versions.
type ItemChange struct {
	Title string `json:"title"`
	Old   any    `json:"old"`
	New   any    `json:"new"`
}

// ItemVersion is one stored snapshot of an item.
type ItemVersion struct {
	ID            string                `json:"id" format:"uuid"`
	VersionNumber int                   `json:"versionNumber"`
	ChangeType    string                `json:"changeType" enum:"created,updated"`
	FieldValues   map[string]any        `json:"fieldValues"`
	Changes       map[string]ItemChange `json:"changes"`
	ChangedBy     ItemVersionUser       `json:"changedBy"`
	CreatedAt     time.Time             `json:"createdAt"`
}

// ItemVersionUser names who made a version.
type ItemVersionUser struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
}

// VersionHistory is the data of GET …/versions.
type VersionHistory struct {
	VersioningEnabled bool          `json:"versioningEnabled"`
	Versions          []ItemVersion `json:"versions"`
	Fields            []FieldOut    `json:"fields"`
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// addVersion stores a snapshot when versioning is on (prev nil = creation).
func (s *Service) addVersion(ctx context.Context, sc *schema, it *Item, prev map[string]any, p *auth.Principal) error {
	if !sc.list.VersioningEnabled {
		return nil
	}
	change := "created"
	var changes map[string]ItemChange
	if prev != nil {
		change = "updated"
		changes = map[string]ItemChange{}
		for _, f := range sc.fields {
			if !sameJSON(prev[f.ID], it.Values[f.ID]) {
				changes[f.ID] = ItemChange{Title: f.Title, Old: prev[f.ID], New: it.Values[f.ID]}
			}
		}
	}
	vals, _ := json.Marshal(it.Values)
	var ch any
	if changes != nil {
		j, _ := json.Marshal(changes)
		ch = string(j)
	}
	// queued: sent with the transaction's next statement (store.Queue); a
	// new item's first version is number 1 without looking
	number, numArgs := "(SELECT COALESCE(max(version_number), 0) + 1 FROM list_item_versions WHERE item_guid = ?)", []any{it.GUID}
	if prev == nil {
		number, numArgs = "1", nil
	}
	args := append(append([]any{newKey(), sc.list.ID, it.GUID}, numArgs...), change, string(vals), ch, p.UserID, it.UpdatedAt)
	return s.db.Queue(ctx, "insert version of "+it.GUID, `INSERT INTO list_item_versions (id, list_id, item_guid, version_number, change_type,
		field_values, changes, changed_by, created_at) VALUES (?, ?, ?, `+number+`, ?, ?, ?, ?, ?)`, args...)
}

// ItemVersions returns the version history of an item (view on the item), newest first.
func (s *Service) ItemVersions(ctx context.Context, p *auth.Principal, listID, ref string) (VersionHistory, error) {
	ctx = asViewer(ctx, p)
	sc, it, err := s.itemFor(ctx, p, listID, ref, acl.View)
	if err != nil {
		return VersionHistory{}, err
	}
	out := VersionHistory{VersioningEnabled: sc.list.VersioningEnabled, Versions: []ItemVersion{}, Fields: fieldsOut(sc.fields)}
	if !sc.list.VersioningEnabled {
		// SPEC: with versioning off, versions is empty; stored history is kept
		// and shows again when versioning is switched back on
		return out, nil
	}
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT id, version_number, change_type, field_values, changes, COALESCE(changed_by, ''), created_at
		FROM list_item_versions WHERE item_guid = ? ORDER BY version_number DESC`, it.GUID)
	if err != nil {
		return VersionHistory{}, fmt.Errorf("versions: %w", err)
	}
	defer rows.Close()
	var users []string
	for rows.Next() {
		var v ItemVersion
		var vals string
		var changes *string
		if err := rows.Scan(&v.ID, &v.VersionNumber, &v.ChangeType, &vals, &changes, &v.ChangedBy.ID, &v.CreatedAt); err != nil {
			return VersionHistory{}, err
		}
		v.CreatedAt = v.CreatedAt.UTC()
		_ = json.Unmarshal([]byte(vals), &v.FieldValues)
		if changes != nil {
			_ = json.Unmarshal([]byte(*changes), &v.Changes)
		}
		users = append(users, v.ChangedBy.ID)
		out.Versions = append(out.Versions, v)
	}
	if err := rows.Err(); err != nil {
		return VersionHistory{}, err
	}
	// snapshots keep the displays of their time: those of lookup targets the
	// caller cannot view (now) are blanked
	var snaps []map[string]any
	type side struct {
		v     int
		field string
		old   bool
		m     map[string]any
	}
	var sides []side
	for i, v := range out.Versions {
		if v.FieldValues != nil {
			snaps = append(snaps, v.FieldValues)
		}
		for fid, ch := range v.Changes {
			o, n := map[string]any{fid: ch.Old}, map[string]any{fid: ch.New}
			snaps = append(snaps, o, n)
			sides = append(sides, side{i, fid, true, o}, side{i, fid, false, n})
		}
	}
	if err := s.hideLookupDisplays(ctx, sc.fields, snaps); err != nil {
		return VersionHistory{}, err
	}
	for _, sd := range sides {
		ch := out.Versions[sd.v].Changes[sd.field]
		if sd.old {
			ch.Old = sd.m[sd.field]
		} else {
			ch.New = sd.m[sd.field]
		}
		out.Versions[sd.v].Changes[sd.field] = ch
	}
	names, err := s.st.userNames(ctx, users)
	if err != nil {
		return VersionHistory{}, err
	}
	for i := range out.Versions {
		out.Versions[i].ChangedBy.DisplayName = names[out.Versions[i].ChangedBy.ID]
	}
	return out, nil
}

func (s *Store) deleteVersions(ctx context.Context, guid string) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM list_item_versions WHERE item_guid = ?", guid); err != nil {
		return fmt.Errorf("delete versions: %w", err)
	}
	return nil
}
