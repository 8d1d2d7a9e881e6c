package lists

import (
	"encoding/json"
	"testing"
	"time"
)

// TestItemOutCompact pins the per-item shape of item answers: the user
// block is {display_name} only (its id is updated_by beside it), the
// permission flags are written even when false, and an empty value stays
// an explicit null.
func TestItemOutCompact(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
	it := &Item{Number: 7, GUID: "0f8fad5b-d9cb-469f-a165-70867728950e", Values: map[string]any{"f1": "x", "f2": nil},
		CreatedBy: "u1", UpdatedBy: "u2", CreatedAt: at, UpdatedAt: at, Inherits: true, UpdatedName: "Ann"}
	for _, tc := range []struct {
		name string
		perm *ItemPermissions
		want string
	}{
		{"listing row", &ItemPermissions{CanEdit: true},
			`{"id":7,"guid":"0f8fad5b-d9cb-469f-a165-70867728950e","field_values":{"f1":"x","f2":null},"created_at":"2026-01-02T03:04:05.006Z",` +
				`"created_by":"u1","updated_at":"2026-01-02T03:04:05.006Z","updated_by":"u2","updated_by_user":{"display_name":"Ann"},` +
				`"inherits_permissions":true,"permissions":{"canEdit":true,"canDelete":false,"canManagePermissions":false}}`},
		{"no permissions block", nil,
			`{"id":7,"guid":"0f8fad5b-d9cb-469f-a165-70867728950e","field_values":{"f1":"x","f2":null},"created_at":"2026-01-02T03:04:05.006Z",` +
				`"created_by":"u1","updated_at":"2026-01-02T03:04:05.006Z","updated_by":"u2","updated_by_user":{"display_name":"Ann"},` +
				`"inherits_permissions":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(it.out(tc.perm))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Fatalf("item answer\n got %s\nwant %s", b, tc.want)
			}
		})
	}
}
