package sqlite

import (
	"context"
	"fmt"

	"wsapi/app"
	"wsapi/app/channel/inbound"
)

// Spool is a second SQLite file beside the store's, with a writer of its own, where the
// messaging apps' hook keeps an update before it answers the provider: the answer then
// never waits for the store's writer, which the inbound worker keeps busy with the contacts,
// chats and messages of the updates before (bench/channels: the acknowledgement's p99 was
// that queue). The inbound worker's relay moves the updates into the store's queue
// (channel_updates) in bulk and takes them out of the spool.
// docs/decisions/hook-spool.md.
type Spool struct {
	db    *DB
	onPut func()
}

var _ inbound.Spool = (*Spool)(nil)

// spoolSchema is the spool's one table. It is created when missing; the file holds nothing
// but updates on their way, so a later change can drop the table once relayed.
const spoolSchema = `CREATE TABLE IF NOT EXISTS spooled_updates (
	id             TEXT PRIMARY KEY,
	org_id         TEXT NOT NULL,
	asi_id         TEXT NOT NULL,
	integration_id TEXT NOT NULL,
	body           BLOB NOT NULL,
	created_at     TEXT NOT NULL
)`

// SpoolPath is the spool's file for a database file.
func SpoolPath(dbPath string) string { return dbPath + "-spool" }

// OpenSpool opens (and creates) the spool file at path.
func OpenSpool(path string) (*Spool, error) {
	db, err := open(path, busyTimeout)
	if err != nil {
		return nil, err
	}
	if _, err := db.writer.Exec(spoolSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: spool %s: %w", path, err)
	}
	db.writes.noYield = true
	return &Spool{db: db}, nil
}

// OnPut sets what is called after each update is kept (the relay's nudge).
func (s *Spool) OnPut(f func()) { s.onPut = f }

// Close closes the spool's file.
func (s *Spool) Close() error { return s.db.Close() }

// Put keeps updates in one commit (durable as the store's commits are) when it answers.
func (s *Spool) Put(ctx context.Context, ups ...inbound.Update) error {
	err := s.db.Write(ctx, func(tx app.Tx) error {
		for _, u := range ups {
			if _, err := tx.(*Tx).exec(`INSERT INTO spooled_updates (id, org_id, asi_id, integration_id, body, created_at)
				VALUES (?,?,?,?,?,?)`, u.ID, u.OrgID, u.DeploymentID, u.IntegrationID, u.Body, u.CreatedAt); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && s.onPut != nil {
		s.onPut()
	}
	return err
}

// Take reads the oldest updates kept, at most n and, past the first, at most maxBytes of
// bodies in all (a 25 MiB mail is read alone); they stay until Remove.
func (s *Spool) Take(ctx context.Context, n int, maxBytes int64) (ups []inbound.Update, err error) {
	err = s.db.Read(ctx, func(tx app.Tx) error {
		ups, err = queryAll(tx.(*Tx), func(r rowScanner) (u inbound.Update, err error) {
			err = r.Scan(&u.ID, &u.OrgID, &u.DeploymentID, &u.IntegrationID, &u.Body, &u.CreatedAt)
			u.NextAttemptAt = u.CreatedAt
			return u, err
		}, `SELECT id, org_id, asi_id, integration_id, body, created_at FROM (
				SELECT rowid AS r, *, SUM(length(body)) OVER (ORDER BY rowid) - length(body) AS earlier
				FROM spooled_updates ORDER BY rowid LIMIT ?)
			WHERE earlier = 0 OR earlier + length(body) <= ? ORDER BY r`, n, maxBytes)
		return err
	})
	return ups, err
}

// Remove forgets the updates with these ids (relayed into the store).
func (s *Spool) Remove(ctx context.Context, ids []string) error {
	return s.db.Write(ctx, func(tx app.Tx) error {
		_, err := tx.(*Tx).exec(`DELETE FROM spooled_updates WHERE id IN (SELECT value FROM json_each(?))`, jsonText(ids))
		return err
	})
}
