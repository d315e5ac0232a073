package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"wsapi/app"

	_ "modernc.org/sqlite"
)

// Marker words and the share of messages each appears in; the rest of a message is drawn
// from a filler vocabulary. "invoice" is the ~1% word of the main query.
var markers = []struct {
	word  string
	share float64
}{
	{"invoice", 0.01}, {"refund", 0.01}, {"shipping", 0.01}, {"delivery", 0.03}, {"password", 0.005},
	{"warranty", 0.001}, {"subscription", 0.02}, {"cancel", 0.05}, {"hello", 0.10},
}

// seedSpec is the size of the data set.
type seedSpec struct {
	contacts, chats, messages int
	orgID, ownerID            string
	memberIDs                 []string
	seed                      uint64
}

// seed writes contacts, channels, chats, chat members and messages straight into the
// database file through its own connection, in large transactions. The schema's triggers
// fill both search indexes as the app's own writes would.
func seed(ctx context.Context, path string, s seedSpec, log func(string, ...any)) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(60000)&_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)&_pragma=foreign_keys(1)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	rng := rand.New(rand.NewPCG(s.seed, 42))
	words := filler(rng, 3000)
	end := time.Now().UTC().Add(-time.Hour)
	start := end.Add(-365 * 24 * time.Hour)
	at := func(d time.Duration) string { return app.FormatTime(start.Add(d)) }
	span := end.Sub(start)

	type channel struct{ id, contact, typ, link string }
	chans := make([]channel, s.contacts)
	t0 := time.Now()
	err = inTx(ctx, db, func(tx *sql.Tx) error {
		ct, err := tx.Prepare(`INSERT INTO contacts (id, org_id, name, created_at, updated_at) VALUES (?,?,?,?,?)`)
		if err != nil {
			return err
		}
		ch, err := tx.Prepare(`INSERT INTO contact_channels (id, org_id, contact_id, type, name, username, email, phone,
			email_norm, phone_norm, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`)
		if err != nil {
			return err
		}
		types := []string{"email", "whatsapp", "telegram", "sms", "custom", "messenger"}
		for i := range s.contacts {
			first, last := capitalize(words[rng.IntN(len(words))]), capitalize(words[rng.IntN(len(words))])
			name := first + " " + last
			c := channel{id: app.NewID("ch"), contact: app.NewID("ct"), typ: types[i%len(types)]}
			ts := at(time.Duration(rng.Int64N(int64(span))))
			if _, err := ct.Exec(c.contact, s.orgID, name, ts, ts); err != nil {
				return err
			}
			var email, phone, user string
			switch c.typ {
			case "email":
				email = strings.ToLower(first+"."+last) + fmt.Sprintf("%d@example.com", i)
				c.link = "mailto:" + email
			case "whatsapp", "sms":
				phone = fmt.Sprintf("+1 415 %03d %04d", i/10000, i%10000)
			default:
				user = strings.ToLower(first) + fmt.Sprint(i)
			}
			if _, err := ch.Exec(c.id, s.orgID, c.contact, c.typ, name, user, email, phone,
				app.NormalizeEmail(email), app.NormalizePhone(phone), ts, ts); err != nil {
				return err
			}
			chans[i] = c
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("contacts: %w", err)
	}
	log("seed: %d contacts with a channel each in %s", s.contacts, time.Since(t0).Round(time.Millisecond))

	// Chats, in batches, each with its members and messages; updated_at is its last message.
	t0 = time.Now()
	perChat := float64(s.messages) / float64(s.chats)
	msgsDone := 0
	const batch = 5000
	for first := 0; first < s.chats; first += batch {
		err := inTx(ctx, db, func(tx *sql.Tx) error {
			chat, err := tx.Prepare(`INSERT INTO chats (id, org_id, title, model, visibility, status, link, contact_id,
				contact_channel_id, state_id, state, integration_id, channel_type, ai_enabled, admin_unseen_count,
				user_unseen_count, assigned_user_id, assigned_at, csat_score, last_contact_message_at, last_message_id,
				created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
			if err != nil {
				return err
			}
			member, err := tx.Prepare(`INSERT INTO chat_members (id, chat_id, role, member_id, contact_channel_id, created_at) VALUES (?,?,?,?,?,?)`)
			if err != nil {
				return err
			}
			msg, err := tx.Prepare(`INSERT INTO chat_messages (id, org_id, chat_id, role, model, status, messages, chat_member_id,
				text, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)`)
			if err != nil {
				return err
			}
			for i := first; i < min(first+batch, s.chats); i++ {
				c := chans[rng.IntN(len(chans))]
				id := app.NewID("chat")
				created := time.Duration(rng.Int64N(int64(span)))
				admin, contact := app.NewID("cm"), app.NewID("cm")
				n := int(perChat*2*rng.Float64() + 0.5)
				if i == s.chats-1 {
					n = max(0, s.messages-msgsDone)
				}
				n = min(n, s.messages-msgsDone)
				msgsDone += n
				// The chat row goes first: the message search trigger reads the chat's seq.
				type message struct{ id, role, author, text, turns, at string }
				msgs := make([]message, n)
				roles, authors := [3]string{"user", "assistant", "admin"}, [3]string{contact, "", admin}
				last, lastContact := "", ""
				ts := created
				for j := range msgs {
					ts += time.Duration(rng.Int64N(int64(10 * time.Minute)))
					role, author := roles[j%3], authors[j%3]
					text := sentence(rng, words)
					turns, _ := json.Marshal([]app.Turn{{Role: role, Parts: []app.Part{{Type: "text", Text: text}}}})
					last = app.NewID("msg")
					if role == "user" {
						lastContact = at(ts)
					}
					msgs[j] = message{last, role, author, text, string(turns), at(ts)}
				}
				state := []string{"CLOSED", "CLOSED", "CLOSED", "CLOSED", "CLOSED", "CLOSED", "OPEN", "OPEN", "OPEN", "SNOOZED"}[rng.IntN(10)]
				var assignee, assignedAt, csat any
				if rng.IntN(2) == 0 {
					assignee, assignedAt = s.memberIDs[rng.IntN(len(s.memberIDs))], at(created)
				}
				if state == "CLOSED" && rng.IntN(3) == 0 {
					csat = rng.IntN(6)
				}
				var title any
				if rng.IntN(4) == 0 {
					title = sentence(rng, words)[:20]
				}
				unseen := 0
				if state != "CLOSED" {
					unseen = rng.IntN(4)
				}
				if _, err := chat.Exec(id, s.orgID, title, "auto:auto", "PRIVATE", "COMPLETED", c.link, c.contact, c.id,
					app.NewID("cst"), state, c.typ, c.typ, rng.IntN(2), unseen, rng.IntN(3), assignee, assignedAt, csat,
					nullable(lastContact), nullable(last), at(created), at(ts)); err != nil {
					return err
				}
				if _, err := member.Exec(admin, id, app.ChatRoleAdmin, s.ownerID, nil, at(created)); err != nil {
					return err
				}
				if _, err := member.Exec(contact, id, app.ChatRoleContact, nil, c.id, at(created)); err != nil {
					return err
				}
				for _, m := range msgs {
					if _, err := msg.Exec(m.id, s.orgID, id, m.role, "auto:auto", "COMPLETED", m.turns, nullable(m.author),
						m.text+"\n", m.at, m.at); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("chats: %w", err)
		}
		if (first/batch)%4 == 3 {
			log("seed: %d chats, %d messages (%s)", first+batch, msgsDone, time.Since(t0).Round(time.Second))
		}
	}
	log("seed: %d chats, %d messages in %s", s.chats, msgsDone, time.Since(t0).Round(time.Millisecond))
	// A bench over an index the triggers failed to fill measures nothing.
	var indexed int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM chat_message_fts`).Scan(&indexed); err != nil {
		return err
	}
	if indexed != msgsDone {
		return fmt.Errorf("message search index holds %d of %d messages", indexed, msgsDone)
	}
	_, err = db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

func inTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// filler makes n pronounceable lower-case words of 3 to 9 letters.
func filler(rng *rand.Rand, n int) []string {
	cons, vow := "bcdfghklmnprstvz", "aeiou"
	seen := map[string]bool{}
	for _, m := range markers {
		seen[m.word] = true
	}
	var out []string
	for len(out) < n {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteByte(cons[rng.IntN(len(cons))])
			b.WriteByte(vow[rng.IntN(len(vow))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// sentence is 6 to 20 filler words (skewed towards the first ones, as real vocabularies are)
// with each marker word mixed in at its share.
func sentence(rng *rand.Rand, words []string) string {
	n := 6 + rng.IntN(15)
	parts := make([]string, 0, n+2)
	for range n {
		i := int(float64(len(words)) * rng.Float64() * rng.Float64())
		parts = append(parts, words[i])
	}
	for _, m := range markers {
		if rng.Float64() < m.share {
			parts[rng.IntN(len(parts))] = m.word
		}
	}
	return strings.Join(parts, " ")
}

// capitalize upper-cases the first letter of an ASCII word.
func capitalize(w string) string {
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}
