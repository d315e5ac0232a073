package sqlite_test

import (
	"fmt"
	"testing"

	"wsapi/app"
)

// Segments: additions ignore contacts already in and bump the inbox version only when
// something changed; a removal through another organization is not_found; the missing-id
// checks answer exactly the ids that are not the organization's; a deleted segment leaves
// its contacts' lists.
func TestSegmentMembership(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_s", "", 0).ID
	other := newOrg(t, db, "org_t", "", 0).ID
	contactBook(t, db, org)
	version := func() (v int64) {
		read(t, db, func(tx app.Tx) (err error) { v, err = tx.InboxVersion(org); return err })
		return v
	}
	v0 := version()
	write(t, db, func(tx app.Tx) error { return tx.AddToSegment(org, "seg_1", []string{"ct_1", "ct_4"}) }) // both in already
	if v := version(); v != v0 {
		t.Errorf("an addition that changed nothing moved the inbox version %d -> %d", v0, v)
	}
	write(t, db, func(tx app.Tx) error {
		return firstErr(tx.AddToSegment(org, "seg_1", []string{"ct_2"}), tx.AddToSegment(org, "seg_1", nil),
			tx.AddToSegment(other, "seg_1", []string{"ct_3"})) // another org's segment: nothing
	})
	v1 := version()
	if v1 <= v0 {
		t.Errorf("an addition left the inbox version at %d", v1)
	}
	seg := func() app.Segment {
		var s app.Segment
		read(t, db, func(tx app.Tx) (err error) { s, err = tx.GetSegment(org, "seg_1"); return err })
		return s
	}
	if s := seg(); s.ContactsCount != 3 {
		t.Errorf("segment counts %d contacts, want 3", s.ContactsCount)
	}
	if err := db.Write(bg, func(tx app.Tx) error { return tx.RemoveFromSegment(other, "seg_1", "ct_2") }); code(err) != "not_found" {
		t.Errorf("removal through another org: %v", err)
	}
	write(t, db, func(tx app.Tx) error { return tx.RemoveFromSegment(org, "seg_1", "ct_2") })
	if s := seg(); s.ContactsCount != 2 || version() <= v1 {
		t.Errorf("after a removal: %d contacts", s.ContactsCount)
	}
	read(t, db, func(tx app.Tx) error {
		segs, err := tx.MissingSegments(org, []string{"seg_2", "seg_x", "seg_x", "seg_1"})
		contacts, err2 := tx.MissingContacts(other, []string{"ct_1"})
		none, err3 := tx.MissingContacts(org, nil)
		if firstErr(err, err2, err3) != nil || fmt.Sprint(segs, contacts, none) != "[seg_x] [ct_1] []" {
			t.Errorf("missing: %v %v %v (%v %v %v)", segs, contacts, none, err, err2, err3)
		}
		return nil
	})
	s := seg()
	s.Name, s.Color, s.UpdatedAt = "Renamed", "teal", at(5)
	write(t, db, func(tx app.Tx) error { return tx.UpdateSegment(s) })
	if got := seg(); got.Name != "Renamed" || got.Color != "teal" || !got.UpdatedAt.Equal(at(5).Time) {
		t.Errorf("updated segment %+v", got)
	}
	write(t, db, func(tx app.Tx) error { return tx.DeleteSegment(org, "seg_1") })
	read(t, db, func(tx app.Tx) error {
		c, err := tx.GetContact(org, "ct_1")
		if err != nil || len(c.Segments) != 0 {
			t.Errorf("contact of a deleted segment: %+v (%v)", c.Segments, err)
		}
		if _, err := tx.GetSegment(org, "seg_1"); code(err) != "not_found" {
			t.Errorf("deleted segment: %v", err)
		}
		return nil
	})
	for name, fn := range map[string]func(tx app.Tx) error{
		"update": func(tx app.Tx) error { return tx.UpdateSegment(app.Segment{ID: "seg_2", OrgID: other}) },
		"delete": func(tx app.Tx) error { return tx.DeleteSegment(other, "seg_2") },
	} {
		if err := db.Write(bg, fn); code(err) != "not_found" {
			t.Errorf("%s through another org: %v", name, err)
		}
	}
}
