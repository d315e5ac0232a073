package sqlite_test

import (
	"fmt"
	"reflect"
	"testing"

	"wsapi/app"
)

// Rows inserted together (one jsonb_each statement, constant columns bound once) read back
// exactly as the same rows inserted one by one (plain bound VALUES): strings that JSON must
// escape, booleans, null and set timestamps and optional texts, in columns that vary and in
// columns that are the same in every row; and across the chunks of a large insert.
func TestInsertedTogetherReadsAsInsertedAlone(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_j", "", 0).ID
	reason := `said "no" \ twice`
	names := []string{`quote " and backslash \ `, "line\nbreak\ttab\x01\x1f", "Zoë 🚀 <b>&amp;</b>", "", "plain"}
	rows := func(prefix string) ([]app.Contact, []app.Channel) {
		var cs []app.Contact
		var chs []app.Channel
		for i, name := range names {
			c := app.Contact{ID: fmt.Sprintf("ct_%s%d", prefix, i), OrgID: org, Name: name, Blocked: i%2 == 0, IsAdmin: true,
				CreatedAt: at(1), UpdatedAt: at(1 + i%2)}
			if i%2 == 0 {
				c.BlockedAt, c.UnsubscribeReason = at(5), &reason
			}
			cs = append(cs, c)
			ch := app.Channel{ID: fmt.Sprintf("ch_%s%d", prefix, i), ContactID: c.ID, CreatedAt: at(1), UpdatedAt: at(1),
				ChannelProfile: app.ChannelProfile{Type: app.IntegrationCustom, Name: name, Email: fmt.Sprintf("Mail%d@Example.com", i),
					Phone: "+1 555 010" + fmt.Sprint(i), Language: "de"}}
			if i == 1 {
				ch.PlatformData = map[string]any{"k": `v "1"`}
			}
			chs = append(chs, ch)
		}
		return cs, chs
	}
	together, togetherChannels := rows("t")
	alone, aloneChannels := rows("a")
	write(t, db, func(tx app.Tx) error {
		if err := tx.InsertContacts(together); err != nil {
			return err
		}
		if err := tx.InsertChannels(org, togetherChannels); err != nil {
			return err
		}
		for i := range alone {
			if err := tx.InsertContacts(alone[i : i+1]); err != nil {
				return err
			}
			if err := tx.InsertChannels(org, aloneChannels[i:i+1]); err != nil {
				return err
			}
		}
		return nil
	})
	read(t, db, func(tx app.Tx) error {
		for i := range names {
			a, errA := tx.GetContact(org, alone[i].ID)
			b, errB := tx.GetContact(org, together[i].ID)
			if errA != nil || errB != nil {
				t.Fatalf("%v %v", errA, errB)
			}
			if a.Name != names[i] || !reflect.DeepEqual(renamed(a, "a"), renamed(b, "t")) {
				t.Errorf("row %d inserted alone:\n%+v\ninserted together:\n%+v", i, a, b)
			}
		}
		return nil
	})
}

// renamed blanks what differs by construction between the two sets: the ids.
func renamed(c app.Contact, prefix string) app.Contact {
	c.ID = ""
	chs := append([]app.Channel(nil), c.Channels...)
	for i := range chs {
		chs[i].ID, chs[i].Link, chs[i].ContactID = "", "", ""
	}
	c.Channels = chs
	return c
}

// A bulk insert larger than one statement's rows, with every column but the ids the same in
// each row, stores every row, the last statement's one row included (all of its columns
// bound as parameters).
func TestInsertedTogetherAcrossChunks(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_k", "", 0).ID
	const n = 2501 // two statements, the second of one row
	cs := make([]app.Contact, n)
	for i := range cs {
		cs[i] = app.Contact{ID: fmt.Sprintf("ct_%05d", i), OrgID: org, Name: "Same", CreatedAt: at(1), UpdatedAt: at(1)}
	}
	write(t, db, func(tx app.Tx) error { return tx.InsertContacts(cs) })
	read(t, db, func(tx app.Tx) error {
		_, total, err := tx.ListContacts(org, app.ContactFilter{}, app.Page{Page: 1, Take: 1})
		if err != nil || total != n {
			t.Fatalf("total %d (%v)", total, err)
		}
		for _, i := range []int{0, 2499, 2500} {
			if c, err := tx.GetContact(org, cs[i].ID); err != nil || c.Name != "Same" || !c.CreatedAt.Equal(at(1).Time) {
				t.Errorf("contact %d: %+v (%v)", i, c, err)
			}
		}
		return nil
	})
}
