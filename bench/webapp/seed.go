package main

import (
	"context"
	"database/sql"
	"fmt"

	_ "modernc.org/sqlite"
)

// seed writes contacts (one email channel each), chats spread over a year and one
// contact message per chat straight into the file, each table in one INSERT ... SELECT over
// a generated series: the schema's triggers fill the search indexes and the inbox's counters
// as the app's own writes do. Ids are made up (ct_seed_N, ...): nothing reads their shape.
func seed(ctx context.Context, path, orgID, ownerID string, contacts, chats int) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(60000)&_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)&_pragma=foreign_keys(1)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	series := func(n int) string {
		return fmt.Sprintf(`WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM s WHERE n < %d) `, n)
	}
	// Times: minute n after 2026-01-01 (chats) so that updated_at orders them.
	stmts := []string{
		series(19) + `INSERT INTO members (id, org_id, name, email, avatar, role, created_at, updated_at)
			SELECT 'mem_seed_'||n, ?1, 'Agent '||n, 'agent'||n||'@example.com', '', 'MEMBER', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM s`,
		series(contacts) + `INSERT INTO contacts (id, org_id, name, created_at, updated_at)
			SELECT 'ct_seed_'||n, ?1, 'Contact '||n, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM s`,
		series(contacts) + `INSERT INTO contact_channels (id, org_id, contact_id, type, name, username, email, phone,
			email_norm, phone_norm, created_at, updated_at)
			SELECT 'ch_seed_'||n, ?1, 'ct_seed_'||n, 'email', 'Contact '||n, '', 'c'||n||'@example.com', '',
			'c'||n||'@example.com', '', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM s`,
		series(chats) + `INSERT INTO chats (id, org_id, title, model, visibility, status, link, contact_id,
			contact_channel_id, state_id, state, integration_id, channel_type, ai_enabled, admin_unseen_count,
			user_unseen_count, assigned_user_id, assigned_at, csat_score, last_contact_message_at, last_message_id,
			created_at, updated_at)
			SELECT printf('chat_seed_%08d', n), ?1, NULL, 'auto:auto', 'PRIVATE', 'COMPLETED', 'mailto:c'||(n % ?3 + 1)||'@example.com',
			'ct_seed_'||(n % ?3 + 1), 'ch_seed_'||(n % ?3 + 1), 'cst_seed_'||n,
			CASE n % 10 WHEN 0 THEN 'SNOOZED' WHEN 1 THEN 'OPEN' WHEN 2 THEN 'OPEN' WHEN 3 THEN 'OPEN' ELSE 'CLOSED' END,
			'email', 'email', n % 2, CASE WHEN n % 25 = 1 THEN 1 + n % 3 ELSE 0 END, 0,
			CASE WHEN n % 2 = 0 THEN CASE WHEN n % 40 = 0 THEN ?2 ELSE 'mem_seed_'||(n % 19 + 1) END END,
			CASE WHEN n % 2 = 0 THEN '2026-01-01T00:00:00.000Z' END,
			CASE WHEN n % 7 = 0 THEN n % 6 END,
			strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+'||n||' minutes'), printf('msg_seed_%08d', n),
			strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+'||n||' minutes'), strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+'||n||' minutes') FROM s`,
		series(chats) + `INSERT INTO chat_members (id, chat_id, role, member_id, contact_channel_id, created_at)
			SELECT printf('cm_seed_c%08d', n), printf('chat_seed_%08d', n), 'CONTACT', NULL, 'ch_seed_'||(n % ?3 + 1), '2026-01-01T00:00:00.000Z' FROM s`,
		series(chats) + `INSERT INTO chat_messages (id, org_id, chat_id, role, model, status, messages, chat_member_id, text, created_at, updated_at)
			SELECT printf('msg_seed_%08d', n), ?1, printf('chat_seed_%08d', n), 'user', 'auto:auto', 'COMPLETED',
			'[{"role":"user","parts":[{"type":"text","text":"Hello, question number '||n||' about my order"}]}]',
			printf('cm_seed_c%08d', n), 'Hello, question number '||n||' about my order'||char(10),
			strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+'||n||' minutes'), strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+'||n||' minutes') FROM s`,
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q, orgID, ownerID, contacts); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}
