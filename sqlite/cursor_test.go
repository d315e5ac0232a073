package sqlite_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"wsapi/app"
)

// TestMemoryCursorEdges: a cursor walk of the (importance, created_at, id) order meets ties on
// both leading columns, pages of one, a cursor on the very last row and an offset past the
// end, and always answers each memory once, in the order the offset pages give.
func TestMemoryCursorEdges(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org, _, _ := seedOrg(t, db, "owner@example.com")
	at := func(s int) app.Time { return app.At(time.Date(2026, 1, 2, 3, 4, s, 0, time.UTC)) }
	contact := app.Contact{ID: app.NewID("ct"), OrgID: org.ID, Name: "C", CreatedAt: at(0), UpdatedAt: at(0)}
	// Five share importance 0.5 and a second; two share 0.9 and another second; one is alone.
	var all []app.Memory
	for i, spec := range []struct {
		imp float64
		sec int
	}{{0.5, 1}, {0.5, 1}, {0.5, 1}, {0.5, 1}, {0.5, 1}, {0.9, 2}, {0.9, 2}, {0.1, 3}} {
		all = append(all, app.Memory{ID: fmt.Sprintf("mem_%02d%s", i, app.RandomBase62(4)), OrgID: org.ID, ContactID: contact.ID,
			UserID: "u", Type: app.MemoryTypes[0], Importance: spec.imp, Content: "m", CreatedAt: at(spec.sec), UpdatedAt: at(spec.sec)})
	}
	err := db.Write(bg, func(tx app.Tx) error {
		if err := tx.CreateContact(contact); err != nil {
			return err
		}
		for _, m := range all {
			if err := tx.CreateMemory(m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	list := func(after *app.MemoryCursor, offset, limit int) (ids []string) {
		t.Helper()
		err := db.Read(bg, func(tx app.Tx) error {
			ms, total, err := tx.ListMemories(org.ID, contact.ID, after, offset, limit)
			if total != len(all) {
				t.Errorf("total %d, want %d", total, len(all))
			}
			for _, m := range ms {
				ids = append(ids, m.ID)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	want := list(nil, 0, 100)
	slices.SortFunc(all, func(a, b app.Memory) int {
		return cmp.Or(cmp.Compare(b.Importance, a.Importance), b.CreatedAt.Compare(a.CreatedAt.Time), strings.Compare(b.ID, a.ID))
	})
	for i, m := range all {
		if want[i] != m.ID {
			t.Fatalf("order %v, want importance, created_at, id descending", want)
		}
	}
	for _, take := range []int{1, 2, 3, 5, 8} {
		var walked []string
		var cur *app.MemoryCursor
		for page := 0; page <= len(all); page++ {
			ids := list(cur, 0, take)
			if byOffset := list(nil, page*take, take); !slices.Equal(ids, byOffset) {
				t.Fatalf("take %d page %d: cursor %v, offset %v", take, page, ids, byOffset)
			}
			if len(ids) == 0 {
				break
			}
			walked = append(walked, ids...)
			last := all[len(walked)-1]
			cur = &app.MemoryCursor{Importance: last.Importance, CreatedAt: last.CreatedAt.String(), ID: last.ID}
		}
		if !slices.Equal(walked, want) {
			t.Errorf("take %d walked %v, want %v", take, walked, want)
		}
	}
	if ids := list(nil, len(all)+3, 5); len(ids) != 0 {
		t.Errorf("an offset past the end answers %v", ids)
	}
}
