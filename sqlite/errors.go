package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"regexp"

	"wsapi/app"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// mapErr turns the store's failures into the domain's errors, as GoToSocial's
// errors_moderncsqlite3.go does: UNIQUE constraints decide conflicts (never check-then-insert)
// and the 409 names the field at fault; a foreign key is a conflict too; a busy database is
// unavailable for a moment (a 503 with Retry-After), not an internal error. The rest is
// wrapped with %w so errors.Is keeps working up the stack.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := app.AsError(err); ok {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch code := se.Code(); {
		case code == sqlite3.SQLITE_CONSTRAINT_UNIQUE, code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return uniqueConflict(se.Error())
		case code == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return errForeignKey
		case code&0xff == sqlite3.SQLITE_BUSY, code&0xff == sqlite3.SQLITE_LOCKED:
			return errBusy
		}
	}
	return fmt.Errorf("sqlite: %w", err)
}

var (
	// errForeignKey: SQLite does not say which reference failed. Services check the objects
	// they refer to first, so this is a race with a delete or a missed check; either way the
	// request clashes with the current state, and retrying after a read shows how.
	errForeignKey = app.Conflict("the change refers to an object that does not exist, or removes one that others still refer to")
	errBusy       = app.Unavailable("the database is busy; retry in a moment")
	errUnique     = app.Conflict("an object with the same unique value already exists")
)

// uniqueFailed reads the columns out of SQLite's "UNIQUE constraint failed: t.a, t.b".
var uniqueFailed = regexp.MustCompile(`UNIQUE constraint failed: ([^()]+?)(?: \(\d+\))?$`)

// taken is what a UNIQUE constraint means in the API: the field whose value is taken, and why.
type taken struct{ field, why string }

// uniqueFields maps each UNIQUE constraint that a client's input can hit, by the columns
// SQLite names, to the API field. Constraints on random ids and on rows the services upsert
// are in internalUnique instead; a test checks that every constraint of the schema is in one
// of the two.
var uniqueFields = map[string]taken{
	"roles.org_id, roles.name":                              {"name", "is already the name of a role of this organization"},
	"members.org_id, members.email":                         {"email", "is already in use by a member of this organization"},
	"domains.org_id, domains.domain":                        {"domain", "is already a domain of this organization"},
	"email_identities.org_id, email_identities.email":       {"email", "is already an identity of this organization"},
	"email_identities.org_id":                               {"is_default", "another identity is already the default"},
	"suppressions.org_id, suppressions.email":               {"email", "is already on the suppression list"},
	"chat_members.chat_id, chat_members.member_id":          {"member_id", "is already a member of this chat"},
	"chat_members.chat_id, chat_members.contact_channel_id": {"contact_channel_id", "is already in this chat"},
}

// internalUnique are the constraints no client input can hit: a clash there is a conflict
// with nothing to name (random ids, rows written with ON CONFLICT or INSERT OR IGNORE).
// Keys on a lone random "id" column are left out: every table has one.
var internalUnique = map[string]bool{
	"api_keys.token_hash": true,
	"webhook_attempts.delivery_id, webhook_attempts.number":                 true,
	"segment_members.segment_id, segment_members.contact_id":                true,
	"message_reactions.message_id, message_reactions.member_id":             true,
	"assistant_runs.chat_id":                                                true,
	"idempotency_keys.org_id, idempotency_keys.key, idempotency_keys.route": true,
	"oauth_states_used.state":                                               true,
	"knowledge_files.content_id":                                            true,
	"inbox_versions.scope":                                                  true,
	"inbox_changes.org_id, inbox_changes.version":                           true,
	"contact_counts.org_id":                                                 true,
	// The web app's sign-in: tokens are 256 random bits, a password is an upsert.
	"web_sessions.token_hash":       true,
	"password_links.token_hash":     true,
	"member_passwords.member_id":    true,
	"message_deliveries.message_id": true,
	"widget_sessions.token_hash":    true,
	// Written with ON CONFLICT DO NOTHING (a provider's update sent again).
	"channel_seen.asi_id, channel_seen.external_id": true,
	// The email channel's threads: written with ON CONFLICT DO NOTHING.
	"email_chats.chat_id":                           true,
	"email_chats.token_hash":                        true,
	"email_messages.org_id, email_messages.mail_id": true,
	// The IMAP poller's cursor: one row per integration, an upsert.
	"mailbox_cursors.asi_id": true,
	// A queued update's body: one per update, written with it (a new update id).
	"channel_update_bodies.update_id": true,
}

// uniqueConflict is the 409 of a UNIQUE violation, naming the field when a client's input
// caused it.
func uniqueConflict(msg string) error {
	if m := uniqueFailed.FindStringSubmatch(msg); m != nil {
		if t, ok := uniqueFields[m[1]]; ok {
			return app.Taken(t.field, t.why)
		}
	}
	return errUnique
}

// one maps sql.ErrNoRows of a single-row read to not_found.
func one(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return app.NotFound(what)
	}
	return mapErr(err)
}
