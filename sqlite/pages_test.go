package sqlite_test

import (
	"fmt"
	"slices"
	"testing"

	"wsapi/app"
)

// pagedList is one offset-paginated list of the store: seed writes the item with an id
// whose sort column ties with every other item's, so that only the id orders them.
type pagedList struct {
	name  string
	desc  bool                                  // newest (highest id) first on ties
	setup func(tx app.Tx, org string) error     // parents the items need
	seed  func(tx app.Tx, org, id string) error // one item
	list  func(tx app.Tx, org string, p app.Page) ([]string, int, error)
}

func pagedLists() []pagedList {
	chat := func(org string) string { return "chat_of_" + org }
	contact := func(org string) string { return "ct_of_" + org }
	return []pagedList{
		{name: "segments", seed: func(tx app.Tx, org, id string) error {
			return tx.CreateSegment(app.Segment{ID: id, OrgID: org, Name: "Same", Color: "red", CreatedAt: at(0), UpdatedAt: at(0)})
		}, list: func(tx app.Tx, org string, p app.Page) ([]string, int, error) {
			l, n, err := tx.ListSegments(org, p)
			return idsOf(l, func(s app.Segment) string { return s.ID }), n, err
		}},
		{name: "connections", seed: func(tx app.Tx, org, id string) error {
			return tx.CreateConnection(app.Connection{ID: id, OrgID: org, Type: "TOOLS", Name: "Same", Config: map[string]any{},
				Secrets: map[string]string{}, SecretKeys: []string{}, CreatedAt: at(0), UpdatedAt: at(0)})
		}, list: func(tx app.Tx, org string, p app.Page) ([]string, int, error) {
			l, n, err := tx.ListConnections(org, "", p)
			return idsOf(l, func(c app.Connection) string { return c.ID }), n, err
		}},
		{name: "suppressions", desc: true, seed: func(tx app.Tx, org, id string) error {
			_, err := tx.AddSuppression(app.Suppression{ID: id, OrgID: org, Email: id + "@example.com", Reason: "MANUAL", CreatedAt: at(0)})
			return err
		}, list: func(tx app.Tx, org string, p app.Page) ([]string, int, error) {
			l, n, err := tx.ListSuppressions(org, "", p)
			return idsOf(l, func(s app.Suppression) string { return s.ID }), n, err
		}},
		{name: "webhooks", seed: func(tx app.Tx, org, id string) error {
			return tx.CreateWebhook(app.Webhook{ID: id, OrgID: org, Name: "h", URL: "https://example.com", Events: []string{"x"},
				Enabled: true, Secret: "s", CreatedAt: at(0), UpdatedAt: at(0)})
		}, list: func(tx app.Tx, org string, p app.Page) ([]string, int, error) {
			l, n, err := tx.ListWebhooks(org, p)
			return idsOf(l, func(w app.Webhook) string { return w.ID }), n, err
		}},
		{name: "members", seed: func(tx app.Tx, org, id string) error {
			return tx.CreateMember(app.Member{ID: id, OrgID: org, Name: "M", Email: id + "@example.com", Role: app.RoleMember,
				CreatedAt: at(0), UpdatedAt: at(0)})
		}, list: func(tx app.Tx, org string, p app.Page) ([]string, int, error) {
			l, n, err := tx.ListMembers(org, p)
			return idsOf(l, func(m app.Member) string { return m.ID }), n, err
		}},
		{name: "assistants", seed: func(tx app.Tx, org, id string) error {
			return tx.CreateAssistant(app.Assistant{ID: id, OrgID: org, Name: "Same", CreatedAt: at(0), UpdatedAt: at(0)})
		}, list: func(tx app.Tx, org string, p app.Page) ([]string, int, error) {
			l, n, err := tx.ListAssistants(org, "", p)
			return idsOf(l, func(a app.Assistant) string { return a.ID }), n, err
		}},
		{name: "broadcasts", desc: true, seed: func(tx app.Tx, org, id string) error {
			return tx.CreateBroadcast(app.Broadcast{ID: id, OrgID: org, Name: "B", IntegrationID: "internal", Status: "DRAFT",
				SegmentIDs: []string{}, ContactIDs: []string{}, CreatedAt: at(0), UpdatedAt: at(0)})
		}, list: func(tx app.Tx, org string, p app.Page) ([]string, int, error) {
			l, n, err := tx.ListBroadcasts(org, p)
			return idsOf(l, func(b app.Broadcast) string { return b.ID }), n, err
		}},
		{name: "notes", desc: true, setup: func(tx app.Tx, org string) error {
			return tx.CreateContact(app.Contact{ID: contact(org), OrgID: org, Name: "C", CreatedAt: at(0), UpdatedAt: at(0)})
		}, seed: func(tx app.Tx, org, id string) error {
			return tx.CreateNote(app.Note{ID: id, OrgID: org, ContactID: contact(org), Content: "n", User: app.User{ID: "mem_x"},
				CreatedAt: at(0), UpdatedAt: at(0)})
		}, list: func(tx app.Tx, org string, p app.Page) ([]string, int, error) {
			l, n, err := tx.ListNotes(org, contact(org), p)
			return idsOf(l, func(n app.Note) string { return n.ID }), n, err
		}},
		{name: "files", desc: true, setup: func(tx app.Tx, org string) error {
			return tx.CreateChat(testChat(org, chat(org), 0), app.ChatMember{})
		}, seed: func(tx app.Tx, org, id string) error {
			return tx.CreateFile(org, app.ChatFile{Audio: app.Audio{ID: id, FileFilename: "f.txt", FileMimetype: "text/plain",
				CreatedAt: at(0)}, ChatID: chat(org), Data: []byte("x")})
		}, list: func(tx app.Tx, org string, p app.Page) ([]string, int, error) {
			l, n, err := tx.ListFiles(org, chat(org), "", "", p)
			return idsOf(l, func(f app.ChatFile) string { return f.ID }), n, err
		}},
		{name: "sub-organizations", seed: func(tx app.Tx, org, id string) error {
			return tx.CreateOrg(app.Org{ID: id, ParentOrgID: &org, Name: "S", Plan: app.PlanFree, CreatedAt: at(0), UpdatedAt: at(0)})
		}, list: func(tx app.Tx, org string, p app.Page) ([]string, int, error) {
			l, n, err := tx.ListSubOrgs(org, p)
			return idsOf(l, func(o app.Org) string { return o.ID }), n, err
		}},
	}
}

// testChat is a plain chat of org created at sec, with no contact.
func testChat(org, id string, sec int) app.Chat {
	return app.Chat{ID: id, OrgID: org, Model: app.AutoModel, Visibility: "PRIVATE", Status: "COMPLETED", Tools: []app.Tool{},
		CreatedAt: at(sec), UpdatedAt: at(sec), State: &app.ChatState{ID: "cs_" + id, State: "OPEN", IntegrationID: app.IntegrationInternal}}
}

// TestPageEdges: every offset-paginated list answers an empty organization with [] (never
// null) and a total of 0; a page of exactly the remaining size, then an empty page; a last
// page shorter than the take; the total on every page; and, when the sort column ties, the
// id breaks the tie so that walking the pages answers each item once.
func TestPageEdges(t *testing.T) {
	t.Parallel()
	for _, l := range pagedLists() {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			db, _ := openDB(t)
			db.SetSealer(box(t, 3))
			org := newOrg(t, db, "org_pages", "", 0)
			read(t, db, func(tx app.Tx) error {
				ids, total, err := l.list(tx, org.ID, app.Page{Page: 1, Take: 10})
				if err != nil || total != 0 || ids == nil || len(ids) != 0 {
					t.Errorf("empty: %v total %d (%v)", ids, total, err)
				}
				return nil
			})
			const n = 5
			write(t, db, func(tx app.Tx) error {
				if l.setup != nil {
					if err := l.setup(tx, org.ID); err != nil {
						return err
					}
				}
				for _, i := range []int{3, 0, 4, 1, 2} { // not in id order
					if err := l.seed(tx, org.ID, fmt.Sprintf("x_%s_%d", org.ID, i)); err != nil {
						return err
					}
				}
				return nil
			})
			var want []string
			for i := range n {
				want = append(want, fmt.Sprintf("x_%s_%d", org.ID, i))
			}
			if l.desc {
				slices.Reverse(want)
			}
			page := func(p, take int) []string {
				var ids []string
				read(t, db, func(tx app.Tx) error {
					var total int
					var err error
					ids, total, err = l.list(tx, org.ID, app.Page{Page: p, Take: take})
					if err != nil || total != n {
						t.Fatalf("page %d of %d: total %d (%v)", p, take, total, err)
					}
					return nil
				})
				return ids
			}
			var walked []string
			for p, size := range []int{2, 2, 1, 0} {
				ids := page(p+1, 2)
				if len(ids) != size || ids == nil {
					t.Errorf("page %d of 2: %v, want %d items", p+1, ids, size)
				}
				walked = append(walked, ids...)
			}
			if !slices.Equal(walked, want) {
				t.Errorf("walked %v, want %v (ties broken by id)", walked, want)
			}
			if exact := page(1, n); !slices.Equal(exact, want) {
				t.Errorf("one exact page: %v", exact)
			}
			if after := page(2, n); len(after) != 0 {
				t.Errorf("the page after an exact one: %v", after)
			}
		})
	}
}
