package sqlite

import (
	"context"
	"database/sql"
	"sync"

	"wsapi/app"
)

// orgVersions numbers, per organization, what may have changed since an answer was read
// (DB.OrgVersion), so that the answers kept for one organization (app/api/kept.go) outlive
// the commits made for another. A commit of this process's writer made only of writes scoped
// to organizations (app.WithWriteScope) moves those organizations' versions; any other commit
// moves every version: an unscoped write (a worker's, a public route's), a failed or unknown
// one, and a commit by another connection (the CLI, another process), which shows as the
// WAL index's stamp moving with no commit of ours to account for it.
//
// How a foreign commit is told from ours: the writer reads the stamp under SQLite's write
// lock, before its commit (nothing else can commit then), and after it; another
// connection's commit between our COMMIT and the second read shows in PRAGMA data_version,
// which moves on a connection only for other connections' commits. Between batches, a reader
// that finds the stamp moved while no batch of ours is under way moves every version.
// docs/decisions/kept-answers.md.
type orgVersions struct {
	mu sync.Mutex
	// seen is the stamp whose commits are accounted for.
	seen walStamp
	// writing: a batch of ours holds the write lock; a stamp that moved meanwhile is its
	// commit, not accounted for yet, so no version is answered until it is.
	writing bool
	// gen is the last number given out; all was given at the last commit that may have
	// changed anything; orgs were given since, at commits scoped to each organization.
	gen  int64
	all  int64
	orgs map[string]int64
}

// version is the organization's version as the data stands now; false while it cannot be
// told (no stamp, or a commit of ours not yet accounted for).
func (v *orgVersions) version(w *walIndex, orgID string) (int64, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	s, ok := w.stamp()
	if !ok {
		return 0, false
	}
	if s != v.seen {
		if v.writing {
			return 0, false
		}
		v.retireAll(s)
	}
	return max(v.all, v.orgs[orgID]), true
}

func (v *orgVersions) retireAll(s walStamp) {
	v.gen++
	v.all, v.seen = v.gen, s
	clear(v.orgs)
}

// batchCommit is what the writer learned under the write lock: the other connections'
// commits it has seen so far (PRAGMA data_version), when it could tell.
type batchCommit struct {
	dataVersion int64
	known       bool
}

// begin is called by the writer once its transaction holds the write lock: a commit since
// the last one accounted for was another connection's.
func (v *orgVersions) begin(w *walIndex, tx *sql.Tx) batchCommit {
	var b batchCommit
	b.known = tx.QueryRowContext(context.Background(), "PRAGMA data_version").Scan(&b.dataVersion) == nil
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := w.stamp(); !ok || s != v.seen {
		v.retireAll(s)
	}
	v.writing = true
	return b
}

// end accounts for the batch's commit (committed false: it was rolled back), made for the
// organizations named (all: for any).
func (v *orgVersions) end(w *walIndex, writer *sql.DB, b batchCommit, committed bool, orgIDs []string, all bool) {
	s, stamped := w.stamp()
	var after int64
	foreign := !b.known || writer.QueryRowContext(context.Background(), "PRAGMA data_version").Scan(&after) != nil ||
		after != b.dataVersion
	v.mu.Lock()
	defer v.mu.Unlock()
	v.writing = false
	switch {
	case !stamped || foreign || (committed && all):
		v.retireAll(s)
	case committed:
		if v.orgs == nil {
			v.orgs = map[string]int64{}
		}
		for _, id := range orgIDs {
			v.gen++
			v.orgs[id] = v.gen
		}
		v.seen = s
	case s != v.seen: // rolled back, yet the stamp moved
		v.retireAll(s)
	}
}

// OrgVersion is a number that changes whenever anything an organization's answers are made
// of may have changed (app.Store); without a WAL index mapping it is not known.
func (db *DB) OrgVersion(orgID string) (int64, bool) { return db.versions.version(db.wal, orgID) }

// batchScope names the organizations a batch's writes were made for; all when any was made
// for none in particular.
func batchScope(batch []*writeCall) (orgIDs []string, all bool) {
	for _, c := range batch {
		id, ok := app.WriteScope(c.ctx)
		if !ok {
			return nil, true
		}
		orgIDs = append(orgIDs, id)
	}
	return orgIDs, false
}
