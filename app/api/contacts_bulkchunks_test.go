package api_test

import (
	"fmt"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

// An import larger than one batch of rows (the created items become rows 2,500 at a time)
// creates every item as a contact with its channel, on both sides of each batch's edge,
// beside updated items matched by email and by contact_id; every created or updated
// contact joins the segment.
func TestBulkImportAcrossRowBatches(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	known := ctNamed(e, "Known", map[string]any{"type": "email", "email": "known@example.com"})
	byID := ctNamed(e, "By id")
	seg := ctSegment(e, e.AdminKey, "c", "Imported")
	const contacts, n = "/orgs/c/contacts", 5100 // three batches
	before := e.Count(e.AdminKey, contacts)
	items := make([]app.BulkChannel, 0, n+2)
	for i := range n {
		items = append(items, app.BulkChannel{UserID: fmt.Sprintf("u%06d", i), Email: fmt.Sprintf("n%06d@example.com", i)})
		switch i {
		case 1300:
			items = append(items, app.BulkChannel{Email: "KNOWN@example.com", Name: "Known again"})
		case 4000:
			items = append(items, app.BulkChannel{ContactID: byID, Phone: "+1 555 0199"})
		}
	}
	var res app.BulkResult
	e.Do("POST", contacts+"/bulk", e.AdminKey, map[string]any{"channels": items, "segment_ids": []string{seg}}).Expect(200).JSON(&res)
	if len(res.Created) != n || len(res.Updated) != 2 || len(res.Invalid) != 0 || res.Created[n-1] != items[n+1] {
		t.Fatalf("%d created, %d updated, %d invalid", len(res.Created), len(res.Updated), len(res.Invalid))
	}
	if after := e.Count(e.AdminKey, contacts); after != before+n {
		t.Errorf("contacts %d after the import, want %d", after, before+n)
	}
	if got := e.Count(e.AdminKey, contacts+"?segment_id="+seg); got != n+2 {
		t.Errorf("segment holds %d contacts, want %d", got, n+2)
	}
	for _, i := range []int{0, 2499, 2500, 4999, 5000, n - 1} {
		email := fmt.Sprintf("n%06d@example.com", i)
		found := e.Do("GET", contacts+"?search="+email, e.AdminKey, nil).Expect(200).List()
		if len(found) != 1 || found[0]["name"] != email || len(found[0]["channels"].([]any)) != 1 {
			t.Fatalf("item %d: %v", i, found)
		}
		ch := found[0]["channels"].([]any)[0].(map[string]any)
		if ch["user_id"] != fmt.Sprintf("u%06d", i) || ch["email"] != email || ch["type"] != app.IntegrationCustom {
			t.Errorf("item %d's channel %v", i, ch)
		}
	}
	got := e.Do("GET", contacts+"/"+byID, e.AdminKey, nil).Expect(200).Map()
	if chs := got["channels"].([]any); len(chs) != 1 || chs[0].(map[string]any)["phone"] != "+1 555 0199" {
		t.Errorf("contact named by contact_id: channels %v", got["channels"])
	}
	got = e.Do("GET", contacts+"/"+known, e.AdminKey, nil).Expect(200).Map()
	if chs := got["channels"].([]any); len(chs) != 1 || chs[0].(map[string]any)["name"] != "Known again" {
		t.Errorf("matched contact: channels %v", got["channels"])
	}
}
