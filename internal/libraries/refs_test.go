package libraries

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/principals"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// dbSubjects names users and groups from the tables (what the wiring does).
type dbSubjects struct{ db *store.DB }

func (d dbSubjects) Subject(ctx context.Context, principalType, id string) (string, error) {
	q := "SELECT display_name FROM users WHERE id = ?"
	if principalType == "group" {
		q = "SELECT name FROM groups WHERE id = ?"
	}
	var name string
	if err := d.db.Q(ctx).QueryRowContext(ctx, q, id).Scan(&name); err != nil {
		return "", fault.NotFound(principalType)
	}
	return name, nil
}

// TestReferenceValues: person and lookup values of library fields are stored
// as references, shown with the current displays, and files written before
// are rewritten on the library's first load, on both databases.
func TestReferenceValues(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		env := newTestEnv(t, db)
		const ann, team = "0a000000-0000-4000-8000-000000000001", "0b000000-0000-4000-8000-000000000001"
		now := time.Now().UTC()
		w := db.W(ctx)
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := w.ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		exec("INSERT INTO users (id, login, login_norm, display_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)", ann, "ann", "ann", "Ann Smith", now, now)
		exec("INSERT INTO groups (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)", team, "Team", now, now)
		s := NewService(db, env.engine, env.nodes, env.blobs, 1<<20, &memBin{}, dbSubjects{db})
		l, err := s.Create(ctx, env.admin, NewLibrary{NodeID: env.nodeID, Title: "Docs", Slug: "docs"})
		if err != nil {
			t.Fatal(err)
		}
		mkField := func(name, typ, settings string) string {
			t.Helper()
			in := FieldInput{InternalName: &name, Title: &name, FieldType: &typ}
			if settings != "" {
				in.Settings = json.RawMessage(settings)
			}
			fo, err := s.CreateField(ctx, env.admin, l.ID, in)
			if err != nil {
				t.Fatal(err)
			}
			return fo.ID
		}
		owner := mkField("owner", "person", "")
		rel := mkField("related", "lookup", `{"lookupLibraryId":"`+l.ID+`","allowMultiple":true}`)
		a, _, err := s.Upload(ctx, env.admin, l.ID, "", "a.txt", "text/plain", strings.NewReader("a"), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := s.Upload(ctx, env.admin, l.ID, "", "b.txt", "text/plain", strings.NewReader("b"), nil)
		if err != nil {
			t.Fatal(err)
		}
		vals := map[string]json.RawMessage{owner: json.RawMessage(`["` + ann + `",{"principalType":"group","id":"` + team + `"}]`),
			rel: json.RawMessage(`[` + itoa(a.ID) + `]`)}
		if _, err := s.UpdateFile(ctx, env.admin, l.ID, itoa(b.ID), FilePatch{FieldValues: vals}); err != nil {
			t.Fatal(err)
		}
		stored := func() string {
			t.Helper()
			var v string
			if err := db.Q(ctx).QueryRowContext(ctx, "SELECT field_values FROM library_files WHERE library_id = ? AND number = ?", l.ID, b.ID).Scan(&v); err != nil {
				t.Fatal(err)
			}
			return v
		}
		if got := stored(); !strings.Contains(got, `"u:`+ann+`,g:`+team+`"`) || !strings.Contains(got, `"`+itoa(a.ID)+`"`) || strings.Contains(got, "display") {
			t.Fatalf("stored %s", got)
		}
		shows := func(stage, annName, aName string) {
			t.Helper()
			out, err := s.File(ctx, env.admin, l.ID, itoa(b.ID))
			if err != nil {
				t.Fatal(err)
			}
			wantOwner := []field.Subject{{PrincipalType: "user", ID: ann, Display: annName}, {PrincipalType: "group", ID: team, Display: "Team"}}
			wantRel := []field.LookupValue{{ItemID: a.ID, Display: aName}}
			if !reflect.DeepEqual(out.FieldValues[owner], wantOwner) || !reflect.DeepEqual(out.FieldValues[rel], wantRel) {
				t.Errorf("%s: %#v %#v", stage, out.FieldValues[owner], out.FieldValues[rel])
			}
		}
		shows("written", "Ann Smith", "a.txt")
		exec("UPDATE users SET display_name = ? WHERE id = ?", "Ann Jones", ann)
		principals.Changed(ctx, db, ann)
		newName := "a2.txt"
		if _, err := s.UpdateFile(ctx, env.admin, l.ID, itoa(a.ID), FilePatch{Name: &newName}); err != nil {
			t.Fatal(err)
		}
		shows("renamed", "Ann Jones", "a2.txt")

		// a file written before: entries with their displays in field_values
		old := `{"` + owner + `":[{"principalType":"user","id":"` + ann + `","display":"Old"},{"principalType":"group","id":"` + team + `","display":"Old team"}],"` +
			rel + `":[{"itemId":` + itoa(a.ID) + `,"display":"a.txt"}]}`
		exec("UPDATE library_files SET field_values = ? WHERE library_id = ? AND number = ?", old, l.ID, b.ID)
		shows("old layout", "Ann Jones", "a2.txt")
		compacted.Delete(db.Dialect.String() + "/" + l.ID)
		if _, err := s.load(ctx, l.ID); err != nil {
			t.Fatal(err)
		}
		if got := stored(); !strings.Contains(got, `"u:`+ann+`,g:`+team+`"`) || strings.Contains(got, "display") {
			t.Fatalf("migrated %s", got)
		}
		shows("migrated", "Ann Jones", "a2.txt")

		// SPEC rule 2: tightening keeps the users, one of them
		if _, err := s.UpdateField(ctx, env.admin, l.ID, owner, FieldInput{Settings: json.RawMessage(`{"allowGroups":false,"allowMultiple":false}`)}); err != nil {
			t.Fatal(err)
		}
		out, err := s.File(ctx, env.admin, l.ID, itoa(b.ID))
		if err != nil {
			t.Fatal(err)
		}
		if want := (field.Subject{PrincipalType: "user", ID: ann, Display: "Ann Jones"}); !reflect.DeepEqual(out.FieldValues[owner], want) {
			t.Errorf("tightened: %#v", out.FieldValues[owner])
		}
	})
}
