package sqlite_test

import (
	"fmt"
	"slices"
	"testing"

	"wsapi/app"
	"wsapi/sqlite"
)

// audience writes contacts a..d with an email channel each (b blocked, c's address
// suppressed, d also on a phone) and an email broadcast bc_1 to all four, SENDING; it
// answers the recipient ids by contact.
func audience(t *testing.T, db *sqlite.DB, org string) map[string]string {
	t.Helper()
	b := contact(org, "ct_b", "B", 0)
	b.Blocked = true
	write(t, db, func(tx app.Tx) error {
		err := firstErr(tx.InsertContacts([]app.Contact{contact(org, "ct_a", "A", 0), b, contact(org, "ct_c", "C", 0), contact(org, "ct_d", "D", 0)}),
			tx.InsertChannels(org, []app.Channel{
				channel("ch_a", "ct_a", 0, app.ChannelProfile{Type: "email", Email: "a@example.com", Name: "Ann"}),
				channel("ch_b", "ct_b", 0, app.ChannelProfile{Type: "email", Email: "b@example.com"}),
				channel("ch_c", "ct_c", 0, app.ChannelProfile{Type: "email", Email: "c@example.com"}),
				channel("ch_d", "ct_d", 0, app.ChannelProfile{Type: "email", Email: "d@example.com"}),
				channel("ch_d2", "ct_d", 1, app.ChannelProfile{Type: "whatsapp", Phone: "+1 555 010 0009"}),
			}))
		if err != nil {
			return err
		}
		if _, err := tx.AddSuppression(app.Suppression{ID: "sup_c", OrgID: org, Email: "c@example.com", Reason: "BOUNCE", CreatedAt: at(0)}); err != nil {
			return err
		}
		bc := app.Broadcast{ID: "bc_1", OrgID: org, Name: "Launch", IntegrationID: "email", Subject: "Hi", Text: "t", HTML: "<p>t</p>",
			Status: app.BroadcastSending, SegmentIDs: []string{}, ContactIDs: []string{"ct_a", "ct_b", "ct_c", "ct_d"}, CreatedAt: at(1), UpdatedAt: at(1)}
		if err := tx.CreateBroadcast(bc); err != nil {
			return err
		}
		n, err := tx.CreateRecipients(bc, at(1))
		if err == nil && n != 4 {
			err = fmt.Errorf("%d recipients, want 4", n)
		}
		return err
	})
	byContact := map[string]string{}
	read(t, db, func(tx app.Tx) error {
		rs, _, err := tx.ListRecipients(org, app.RecipientFilter{SortField: "created_at"}, nil, 0, 10)
		for _, r := range rs {
			byContact[r.ContactID] = r.ID
		}
		return err
	})
	return byContact
}

func recipientIDs(rs []app.Recipient) []string {
	return idsOf(rs, func(r app.Recipient) string { return r.ID })
}

// TestRecipientFiltersAndCursor: the recipient list filters by contact, address (any case),
// status and flags set or not, and a cursor walks it both ways with the id breaking the tie
// of one created_at.
func TestRecipientFiltersAndCursor(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_r", "", 0).ID
	r := audience(t, db, org)
	var set, again bool
	write(t, db, func(tx app.Tx) (err error) {
		if set, err = tx.SetRecipientFlag(r["ct_a"], "sent", at(5), at(5)); err != nil {
			return err
		}
		if again, err = tx.SetRecipientFlag(r["ct_a"], "sent", at(6), at(6)); err != nil {
			return err
		}
		_, err = tx.SetRecipientFlag(r["ct_a"], "sent_at = 0, status", at(6), at(6))
		if err == nil {
			return fmt.Errorf("an unknown flag was set")
		}
		return tx.FinishRecipient(r["ct_b"], nil, nil, at(7))
	})
	if !set || again {
		t.Errorf("flag set %v, set again %v", set, again)
	}
	all := []string{r["ct_a"], r["ct_b"], r["ct_c"], r["ct_d"]}
	slices.Sort(all) // one created_at: the id orders them
	cases := []struct {
		name string
		f    app.RecipientFilter
		want []string
	}{
		{"contact", app.RecipientFilter{ContactID: "ct_c"}, []string{r["ct_c"]}},
		{"address in another case", app.RecipientFilter{Email: "D@Example.COM"}, []string{r["ct_d"]}},
		{"broadcast and integration", app.RecipientFilter{BroadcastID: "bc_1", IntegrationID: "email", Status: "ALL"}, all},
		{"processed", app.RecipientFilter{Status: app.RecipientProcessed}, []string{r["ct_b"]}},
		{"sent", app.RecipientFilter{Flags: map[string]bool{"sent": true}}, []string{r["ct_a"]}},
		{"not sent, sending", app.RecipientFilter{Flags: map[string]bool{"sent": false}, Status: app.RecipientSending},
			slices.DeleteFunc(slices.Clone(all), func(id string) bool { return id == r["ct_a"] || id == r["ct_b"] })},
		{"nobody", app.RecipientFilter{UserID: "u_none"}, []string{}},
	}
	read(t, db, func(tx app.Tx) error {
		for _, c := range cases {
			c.f.SortField = "created_at"
			rs, total, err := tx.ListRecipients(org, c.f, nil, 0, 10)
			if err != nil || !slices.Equal(recipientIDs(rs), c.want) || total != len(c.want) {
				t.Errorf("%s: %v total %d (%v), want %v", c.name, recipientIDs(rs), total, err, c.want)
			}
		}
		for _, desc := range []bool{false, true} {
			want := slices.Clone(all)
			if desc {
				slices.Reverse(want)
			}
			var walked []string
			var after *app.RecipientCursor
			for range 4 {
				rs, total, err := tx.ListRecipients(org, app.RecipientFilter{SortField: "created_at", SortDesc: desc}, after, 0, 3)
				if err != nil || total != 4 {
					return fmt.Errorf("total %d (%v)", total, err)
				}
				if len(rs) == 0 {
					break
				}
				walked = append(walked, recipientIDs(rs)...)
				last := rs[len(rs)-1]
				after = &app.RecipientCursor{Value: last.CreatedAt.String(), ID: last.ID}
			}
			if !slices.Equal(walked, want) {
				t.Errorf("desc %v: walked %v, want %v", desc, walked, want)
			}
		}
		return nil
	})
}

// TestRecipientDelivery: a recipient reads back with its contact (by id) or without (by the
// bare id the tracking links carry); finishing, clicks and flags count into the broadcast;
// the progress check says whether any is still sending; opt-outs and suppressions make
// skip candidates; the owner of a recipient is its contact, else the contact that holds its
// address or phone now.
func TestRecipientDelivery(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_r", "", 0).ID
	r := audience(t, db, org)
	read(t, db, func(tx app.Tx) error {
		skip, err := tx.SkipCandidates("bc_1")
		if got := idsOf(skip, func(x app.Recipient) string { return x.ContactID }); err != nil || !slices.Equal(slices.Sorted(slices.Values(got)), []string{"ct_b", "ct_c"}) {
			t.Errorf("skip candidates %v (%v)", got, err)
		}
		got, err := tx.GetRecipient(org, r["ct_a"])
		if err != nil || got.Contact == nil || got.Contact.ID != "ct_a" || *got.Email != "a@example.com" || *got.Name != "Ann" || got.BroadcastName != "Launch" {
			t.Errorf("recipient %+v (%v)", got, err)
		}
		bare, err := tx.FindRecipient(r["ct_a"])
		if err != nil || bare.Contact != nil || bare.OrgID != org {
			t.Errorf("bare recipient %+v (%v)", bare, err)
		}
		_, err1 := tx.GetRecipient("org_other", r["ct_a"])
		_, err2 := tx.FindRecipient("rcpt_none")
		if code(err1) != "not_found" || code(err2) != "not_found" {
			t.Errorf("missing recipients: %v, %v", err1, err2)
		}
		if pending, _, _, err := tx.RecipientProgress("bc_1"); err != nil || pending != 1 {
			t.Errorf("progress while sending: %d (%v)", pending, err)
		}
		return nil
	})
	ext, why := "ext_1", "mailbox full"
	write(t, db, func(tx app.Tx) error {
		for contact, id := range r {
			var e *string
			if contact == "ct_c" {
				e = &why
				if _, err := tx.SetRecipientFlag(id, "failed", at(8), at(8)); err != nil {
					return err
				}
			}
			if err := tx.FinishRecipient(id, &ext, e, at(9)); err != nil {
				return err
			}
		}
		return firstErr(tx.RecordClick(r["ct_a"], at(10)), tx.RecordClick(r["ct_a"], at(11)))
	})
	read(t, db, func(tx app.Tx) error {
		pending, failed, total, err := tx.RecipientProgress("bc_1")
		if err != nil || pending != 0 || failed != 1 || total != 4 {
			t.Errorf("progress when done: %d pending, %d failed of %d (%v)", pending, failed, total, err)
		}
		a, _ := tx.GetRecipient(org, r["ct_a"])
		c, _ := tx.GetRecipient(org, r["ct_c"])
		if a.ClickCount != 2 || !a.LastClickedAt.Equal(at(11).Time) || *a.ExternalMessageID != "ext_1" || a.Status != app.RecipientProcessed ||
			*c.ErrorMessage != why || c.Flags["failed"].IsZero() {
			t.Errorf("finished recipients %+v / %+v", a, c)
		}
		b, err := tx.GetBroadcast(org, "bc_1")
		if err != nil || b.Counts.Recipients != 4 || b.Counts.Processed != 4 || b.Counts.Failed != 1 || b.Subject != "Hi" ||
			!slices.Equal(b.ContactIDs, []string{"ct_a", "ct_b", "ct_c", "ct_d"}) {
			t.Errorf("broadcast %+v (%v)", b, err)
		}
		opted := map[string]bool{}
		for _, id := range []string{"ct_a", "ct_b", "ct_gone"} {
			out, err := tx.ContactOptedOut(org, id)
			if err != nil {
				return err
			}
			opted[id] = out
		}
		if fmt.Sprint(opted) != "map[ct_a:false ct_b:true ct_gone:true]" {
			t.Errorf("opted out %v", opted)
		}
		email, phone := "A@Example.com", "+1 (555) 010-0009"
		for _, c := range []struct {
			r    app.Recipient
			want string
		}{
			{app.Recipient{OrgID: org, ContactID: "ct_b", Email: &email}, "ct_b"},
			{app.Recipient{OrgID: org, ContactID: "ct_gone", Email: &email}, "ct_a"},
			{app.Recipient{OrgID: org, ContactID: "ct_gone", Phone: &phone}, "ct_d"},
			{app.Recipient{OrgID: "org_other", ContactID: "ct_a", Email: &email}, ""},
		} {
			if got, err := tx.RecipientOwner(c.r); err != nil || got != c.want {
				t.Errorf("owner of %s: %q (%v), want %q", c.r.ContactID, got, err, c.want)
			}
		}
		return nil
	})
	for name, fn := range map[string]func(tx app.Tx) error{
		"finish": func(tx app.Tx) error { return tx.FinishRecipient("rcpt_none", nil, nil, at(1)) },
		"click":  func(tx app.Tx) error { return tx.RecordClick("rcpt_none", at(1)) },
		"status": func(tx app.Tx) error { return tx.SetBroadcastStatus("org_other", "bc_1", app.BroadcastSent, at(1)) },
	} {
		if err := db.Write(bg, fn); code(err) != "not_found" {
			t.Errorf("%s of what is not there: %v", name, err)
		}
	}
	write(t, db, func(tx app.Tx) error { return tx.SetBroadcastStatus(org, "bc_1", app.BroadcastSent, at(12)) })
	read(t, db, func(tx app.Tx) error {
		b, err := tx.GetBroadcastContent(org, "bc_1")
		if err != nil || b.Status != app.BroadcastSent || b.Counts != (app.BroadcastCounts{}) || b.HTML != "<p>t</p>" || !b.UpdatedAt.Equal(at(12).Time) {
			t.Errorf("content %+v (%v)", b, err)
		}
		if _, err := tx.GetBroadcastContent("org_other", "bc_1"); code(err) != "not_found" {
			t.Errorf("another org's broadcast: %v", err)
		}
		return nil
	})
}

// TestRecipientLeases: a claim leases recipients; a live lease is not claimed again, a
// lapsed one is; the reader's look for due work agrees.
func TestRecipientLeases(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_r", "", 0).ID
	audience(t, db, org)
	claim := func(now, lease int) int {
		var n int
		write(t, db, func(tx app.Tx) error {
			rs, err := tx.ClaimRecipients(at(now), at(lease), app.ClaimRoom{Limit: 10})
			n = len(rs)
			return err
		})
		return n
	}
	due := func(now int) (d bool) {
		read(t, db, func(tx app.Tx) (err error) { d, err = tx.AnyRecipientDue(at(now)); return err })
		return d
	}
	if !due(2) || claim(2, 20) != 4 {
		t.Fatal("the first claim did not take the four recipients")
	}
	if due(10) || claim(10, 30) != 0 {
		t.Fatal("recipients under a live lease were due or claimed")
	}
	if !due(20) || claim(20, 40) != 4 {
		t.Fatal("recipients whose lease lapsed were not claimed again")
	}
}
