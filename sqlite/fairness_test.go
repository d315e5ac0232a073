package sqlite_test

import (
	"fmt"
	"testing"

	"wsapi/app"
	"wsapi/app/channel/inbound"
	"wsapi/sqlite"
)

// workQueue is one kind of claimable work: seed queues n items of org (older than anything
// seeded after), claim takes up to room's limit at now and answers the organizations of what
// it took, due is the reader's look for work.
type workQueue struct {
	name  string
	seed  func(t *testing.T, db *sqlite.DB, org string, n, sec int)
	claim func(tx app.Tx, now, lease app.Time, room app.ClaimRoom) ([]string, error)
	due   func(tx app.Tx, now app.Time) (bool, error)
}

func workQueues() []workQueue {
	return []workQueue{
		{name: "webhook deliveries", seed: func(t *testing.T, db *sqlite.DB, org string, n, sec int) {
			write(t, db, func(tx app.Tx) error { return tx.CreateWebhook(webhook(org, "wh_"+org, true, "x")) })
			for i := range n {
				emitEvent(t, db, org, fmt.Sprintf("ev_%s_%d", org, i), "x", sec+i)
			}
		}, claim: func(tx app.Tx, now, lease app.Time, room app.ClaimRoom) ([]string, error) {
			jobs, err := tx.ClaimDue(now, lease, room)
			return idsOf(jobs, func(j app.Job) string { return j.OrgID }), err
		}, due: func(tx app.Tx, now app.Time) (bool, error) { return tx.AnyDeliveryDue(now) }},

		{name: "broadcast recipients", seed: func(t *testing.T, db *sqlite.DB, org string, n, sec int) {
			write(t, db, func(tx app.Tx) error {
				var ids []string
				for i := range n {
					id := fmt.Sprintf("ct_%s_%d", org, i)
					ids = append(ids, id)
					if err := firstErr(tx.CreateContact(contact(org, id, "C", sec)),
						tx.CreateChannel(org, channel("ch_"+id, id, sec, app.ChannelProfile{Type: "internal", UserID: id}))); err != nil {
						return err
					}
				}
				b := app.Broadcast{ID: "bc_" + org, OrgID: org, Name: "B", IntegrationID: "internal", Status: app.BroadcastSending,
					SegmentIDs: []string{}, ContactIDs: ids, CreatedAt: at(sec), UpdatedAt: at(sec)}
				if err := tx.CreateBroadcast(b); err != nil {
					return err
				}
				_, err := tx.CreateRecipients(b, at(sec))
				return err
			})
		}, claim: func(tx app.Tx, now, lease app.Time, room app.ClaimRoom) ([]string, error) {
			rs, err := tx.ClaimRecipients(now, lease, room)
			return idsOf(rs, func(r app.Recipient) string { return r.OrgID }), err
		}, due: func(tx app.Tx, now app.Time) (bool, error) { return tx.AnyRecipientDue(now) }},

		{name: "knowledge contents", seed: func(t *testing.T, db *sqlite.DB, org string, n, sec int) {
			write(t, db, func(tx app.Tx) error {
				if err := tx.CreateAssistant(app.Assistant{ID: "asst_" + org, OrgID: org, Name: "A", CreatedAt: at(0), UpdatedAt: at(0)}); err != nil {
					return err
				}
				for i := range n {
					if err := tx.CreateKnowledge(knowledge(org, "asst_"+org, fmt.Sprintf("kc_%s_%d", org, i), "TEXT", "PENDING", sec+i)); err != nil {
						return err
					}
				}
				return nil
			})
		}, claim: func(tx app.Tx, now, lease app.Time, room app.ClaimRoom) ([]string, error) {
			ks, err := tx.ClaimKnowledge(now, lease, room)
			return idsOf(ks, func(k app.KnowledgeContent) string { return k.OrgID }), err
		}, due: func(tx app.Tx, now app.Time) (bool, error) { return tx.AnyKnowledgeDue(now) }},

		{name: "assistant runs", seed: func(t *testing.T, db *sqlite.DB, org string, n, sec int) {
			write(t, db, func(tx app.Tx) error {
				for i := range n {
					chat := fmt.Sprintf("chat_%s_%d", org, i)
					if err := firstErr(tx.CreateChat(testChat(org, chat, sec), app.ChatMember{}),
						tx.ScheduleRun(app.Run{ID: "run_" + chat, OrgID: org, ChatID: chat, DueAt: at(sec + i), CreatedAt: at(sec)})); err != nil {
						return err
					}
				}
				return nil
			})
		}, claim: func(tx app.Tx, now, lease app.Time, room app.ClaimRoom) ([]string, error) {
			runs, err := tx.DueRuns(now, room)
			if err != nil {
				return nil, err
			}
			for _, r := range runs { // a worker takes the run: it is no longer waiting
				if err := tx.StartRun(r.ID, "msg_"+r.ID, "worker", lease); err != nil {
					return nil, err
				}
			}
			return idsOf(runs, func(r app.Run) string { return r.OrgID }), nil
		}, due: func(tx app.Tx, now app.Time) (bool, error) { return tx.AnyRunDue(now) }},

		{name: "channel updates", seed: func(t *testing.T, db *sqlite.DB, org string, n, sec int) {
			write(t, db, func(tx app.Tx) error {
				asst, asi := "asst_u_"+org, "asi_"+org
				if err := firstErr(tx.CreateAssistant(app.Assistant{ID: asst, OrgID: org, Name: "A", CreatedAt: at(0), UpdatedAt: at(0)}),
					tx.CreateDeployment(app.Deployment{ID: asi, OrgID: org, AssistantID: asst, IntegrationID: "telegram", Name: "bot",
						Config: map[string]any{}, Secrets: map[string]string{}, Status: app.DeploymentActive, CreatedAt: at(0), UpdatedAt: at(0)})); err != nil {
					return err
				}
				for i := range n {
					u := inbound.Update{ID: fmt.Sprintf("upd_%s_%d", org, i), OrgID: org, DeploymentID: asi, IntegrationID: "telegram",
						Body: []byte("{}"), NextAttemptAt: at(sec + i), CreatedAt: at(sec + i)}
					if err := tx.(inbound.Tx).QueueUpdate(u); err != nil {
						return err
					}
				}
				return nil
			})
		}, claim: func(tx app.Tx, now, lease app.Time, room app.ClaimRoom) ([]string, error) {
			ups, err := tx.(inbound.Tx).ClaimUpdates(now, lease, room)
			return idsOf(ups, func(u inbound.Update) string { return u.OrgID }), err
		}, due: func(tx app.Tx, now app.Time) (bool, error) { return tx.(inbound.Tx).AnyUpdateQueued(now) }},
	}
}

// TestClaimsNeverStarveASmallOrganization: for every kind of work, one organization's
// backlog of 30 items, all older than another's single item, does not keep that item
// waiting: a claim of two takes one of each. The reader's look for due work answers true
// while the writer is busy with another write, and false once everything is taken.
func TestClaimsNeverStarveASmallOrganization(t *testing.T) {
	t.Parallel()
	for _, q := range workQueues() {
		t.Run(q.name, func(t *testing.T) {
			t.Parallel()
			db := sealedDB(t)
			big, small := newOrg(t, db, "org_big", "", 0).ID, newOrg(t, db, "org_small", "", 0).ID
			q.seed(t, db, big, 30, 1)
			q.seed(t, db, small, 1, 100)
			now, lease := at(1000), at(2000)

			// The look runs on a reader: it answers while a write holds the writer.
			holding, release := make(chan struct{}), make(chan struct{})
			go db.Write(bg, func(app.Tx) error { close(holding); <-release; return nil })
			<-holding
			var due bool
			err := db.Read(bg, func(tx app.Tx) (err error) { due, err = q.due(tx, now); return err })
			close(release)
			if err != nil || !due {
				t.Fatalf("look beside a busy writer: due %v (%v)", due, err)
			}

			var orgs []string
			write(t, db, func(tx app.Tx) (err error) { orgs, err = q.claim(tx, now, lease, app.ClaimRoom{Limit: 2}); return err })
			per := map[string]int{}
			for _, o := range orgs {
				per[o]++
			}
			if per[big] != 1 || per[small] != 1 {
				t.Fatalf("a claim of two took %v; want one of each organization", per)
			}
			write(t, db, func(tx app.Tx) (err error) {
				orgs, err = q.claim(tx, now, lease, app.ClaimRoom{Limit: 100})
				return err
			})
			if len(orgs) != 29 {
				t.Fatalf("the rest: %d claimed, want 29", len(orgs))
			}
			read(t, db, func(tx app.Tx) (err error) { due, err = q.due(tx, now); return err })
			if due {
				t.Error("work looks due when all of it is taken")
			}
		})
	}
}

// TestClaimsCountSubOrganizationsWithTheirTenant: for every kind of work, a tenant whose
// work sits in two sub-organizations (one nested two deep) takes no more than the
// per-organization cap against another tenant, in one claim and counting what it already has
// in flight under either sub-organization.
func TestClaimsCountSubOrganizationsWithTheirTenant(t *testing.T) {
	t.Parallel()
	for _, q := range workQueues() {
		t.Run(q.name, func(t *testing.T) {
			t.Parallel()
			db := sealedDB(t)
			top := newOrg(t, db, "org_tenant", "", 0).ID
			sub1 := newOrg(t, db, "org_sub1", top, 0).ID
			sub2 := newOrg(t, db, "org_sub2", sub1, 0).ID
			other := newOrg(t, db, "org_other", "", 0).ID
			q.seed(t, db, sub1, 5, 1)
			q.seed(t, db, sub2, 5, 10)
			q.seed(t, db, other, 5, 100)
			now, lease := at(1000), at(2000)
			perTenant := func(orgs []string) (mine, theirs int) {
				for _, o := range orgs {
					if o == other {
						theirs++
					} else {
						mine++
					}
				}
				return mine, theirs
			}

			var orgs []string
			write(t, db, func(tx app.Tx) (err error) {
				orgs, err = q.claim(tx, now, lease, app.ClaimRoom{Limit: 4, PerOrg: 2})
				return err
			})
			if mine, theirs := perTenant(orgs); mine != 2 || theirs != 2 {
				t.Fatalf("a claim of four at two per organization took %d of the tenant's sub-organizations and %d of the other tenant's; want 2 and 2 (%v)", mine, theirs, orgs)
			}
			inFlight := map[string]int{sub1: 1, sub2: 1}
			write(t, db, func(tx app.Tx) (err error) {
				orgs, err = q.claim(tx, now, lease, app.ClaimRoom{Limit: 4, PerOrg: 2, Org: inFlight})
				return err
			})
			if mine, theirs := perTenant(orgs); mine != 0 || theirs != 2 {
				t.Fatalf("with one piece in flight in each sub-organization, a claim took %d more of the tenant's and %d of the other's; want 0 and 2 (%v)", mine, theirs, orgs)
			}
		})
	}
}
