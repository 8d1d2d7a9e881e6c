package test

import (
	"testing"

	"coreportal/test/kit"
)

// DELETE of an item answers the recycle-bin entry that holds it; restoring
// that entry brings back exactly that item, even beside one of the same title.
func TestItemDeleteAnswersBinEntry(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)
		node := adm.Do(t, "POST", "/nodes", map[string]any{"title": "Undo", "slug": "undo"}).Expect(t, 201).Map(t)
		nodeID := node["id"].(string)
		list := adm.Do(t, "POST", "/lists", map[string]any{"nodeId": nodeID, "title": "Twins", "slug": "twins"}).Expect(t, 201).Map(t)
		base := "/lists/" + list["id"].(string)
		for range 2 {
			adm.Do(t, "POST", base+"/items", map[string]any{"fieldValues": map[string]any{"title": "Same"}}).Expect(t, 201)
		}
		var first, second struct {
			RecycleBinEntryID *string `json:"recycleBinEntryId"`
		}
		adm.Do(t, "DELETE", base+"/items/2", nil).Expect(t, 200).Into(t, &second)
		adm.Do(t, "DELETE", base+"/items/1", nil).Expect(t, 200).Into(t, &first)
		if second.RecycleBinEntryID == nil || first.RecycleBinEntryID == nil || *first.RecycleBinEntryID == *second.RecycleBinEntryID {
			t.Fatalf("entry ids %v %v", first.RecycleBinEntryID, second.RecycleBinEntryID)
		}
		adm.Do(t, "POST", "/nodes/"+nodeID+"/recycle-bin/"+*second.RecycleBinEntryID+"/restore", nil).Expect(t, 200)
		adm.Do(t, "GET", base+"/items/2", nil).Expect(t, 200)
		adm.Do(t, "GET", base+"/items/1", nil).Expect(t, 404, "NOT_FOUND")
	})
}
