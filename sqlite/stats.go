package sqlite

import (
	"context"
	"database/sql"
	"time"

	"wsapi/app"
)

// Pools are the writer connection and the reader pool, for their sql.DBStats only (the
// metrics' pool collectors); all queries go through Read and Write.
func (db *DB) Pools() (writer, reader *sql.DB) { return db.writer, db.reader }

// ObserveWriteWait sets what is told how long each Write waited for the writer connection.
func (db *DB) ObserveWriteWait(f func(time.Duration)) { db.writeWait = f }

// ObserveWriteBatch sets what is told how many writes each batch of the writer ran.
func (db *DB) ObserveWriteBatch(f func(n int)) { db.writeBatch = f }

// OpsGauges counts the pending webhook deliveries by why they wait, and the knowledge
// contents by status, for the metrics scrape.
func (db *DB) OpsGauges(ctx context.Context, now time.Time) (g app.OpsGauges, err error) {
	g.KnowledgeByStatus = map[string]int{}
	err = db.Read(ctx, func(atx app.Tx) error {
		t := atx.(*Tx)
		// A delivery of a disabled endpoint counts as disabled, else one of a spent
		// organization as paused, else by its next attempt time (the claim's own rules).
		err := t.row(`SELECT
				COALESCE(SUM(w.enabled = 0), 0),
				COALESCE(SUM(w.enabled = 1 AND o.balance <= 0), 0),
				COALESCE(SUM(w.enabled = 1 AND o.balance > 0 AND d.next_attempt_at <= ?), 0),
				COALESCE(SUM(w.enabled = 1 AND o.balance > 0 AND d.next_attempt_at > ?), 0)
			FROM webhook_deliveries d
			JOIN webhook_endpoints w ON w.id = d.webhook_id
			JOIN orgs o ON o.id = d.org_id
			WHERE d.status = 'PENDING'`, app.At(now), app.At(now)).
			Scan(&g.DeliveriesDisabled, &g.DeliveriesPaused, &g.DeliveriesDue, &g.DeliveriesWaiting)
		if err != nil {
			return mapErr(err)
		}
		rows, err := t.query(`SELECT status, COUNT(*) FROM knowledge_contents GROUP BY status`)
		if err != nil {
			return err
		}
		counts, err := collect(rows, func(r rowScanner) (k keyed[int], err error) { return k, r.Scan(&k.key, &k.v) })
		for _, c := range counts {
			g.KnowledgeByStatus[c.key] = c.v
		}
		return err
	})
	return g, err
}
