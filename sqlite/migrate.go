package sqlite

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
)

//go:embed migrations/*.sql
var migrations embed.FS

func (db *DB) provider() (*goose.Provider, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db.writer, sub)
	if err != nil {
		return nil, fmt.Errorf("sqlite: migrations: %w", err)
	}
	return p, nil
}

// MigrationResult is one migration that ran.
type MigrationResult struct {
	Version  int64
	Name     string
	Duration string
}

// MigrationStatus is one migration and whether it is applied.
type MigrationStatus struct {
	Version   int64
	Name      string
	Applied   bool
	AppliedAt string
}

// Migrate applies every pending migration, calling progress after each.
func (db *DB) Migrate(ctx context.Context, progress func(MigrationResult)) error {
	if db.upToDate(ctx) {
		return nil
	}
	p, err := db.provider()
	if err != nil {
		return err
	}
	results, err := p.Up(ctx)
	db.ckpt.committed(db.writer)
	for _, r := range results {
		if progress != nil && r.Source != nil {
			progress(MigrationResult{Version: r.Source.Version, Name: r.Source.Path, Duration: r.Duration.String()})
		}
	}
	if err != nil {
		return fmt.Errorf("sqlite: migrate up: %w", err)
	}
	return nil
}

// upToDate: goose's table records every embedded migration as applied, so Migrate has
// nothing to do. goose's provider parses every migration's SQL as soon as it is made, even
// to answer that nothing is pending (8% of app/webhook's race-test CPU: every test's copy of
// the migrated template, and every start of the server, asked). Any doubt (no table yet, an
// unreadable name) answers false, and goose decides.
func (db *DB) upToDate(ctx context.Context) bool {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil || len(names) == 0 {
		return false
	}
	applied := map[int64]bool{}
	rows, err := db.writer.QueryContext(ctx, `SELECT version_id, is_applied FROM goose_db_version ORDER BY id`)
	if err != nil {
		return false
	}
	defer rows.Close()
	for rows.Next() {
		var version int64
		var isApplied bool
		if err := rows.Scan(&version, &isApplied); err != nil {
			return false
		}
		applied[version] = isApplied // the newest row of a version is its state
	}
	if rows.Err() != nil {
		return false
	}
	for _, name := range names {
		version, err := goose.NumericComponent(name)
		if err != nil || !applied[version] {
			return false
		}
	}
	return true
}

// MigrateDown rolls back the newest applied migration.
func (db *DB) MigrateDown(ctx context.Context) (MigrationResult, error) {
	p, err := db.provider()
	if err != nil {
		return MigrationResult{}, err
	}
	r, err := p.Down(ctx)
	if err != nil {
		return MigrationResult{}, fmt.Errorf("sqlite: migrate down: %w", err)
	}
	return MigrationResult{Version: r.Source.Version, Name: r.Source.Path, Duration: r.Duration.String()}, nil
}

// MigrationsStatus lists every embedded migration and whether it is applied.
func (db *DB) MigrationsStatus(ctx context.Context) ([]MigrationStatus, error) {
	p, err := db.provider()
	if err != nil {
		return nil, err
	}
	st, err := p.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: migrate status: %w", err)
	}
	out := make([]MigrationStatus, len(st))
	for i, s := range st {
		out[i] = MigrationStatus{Version: s.Source.Version, Name: s.Source.Path, Applied: s.State == goose.StateApplied}
		if !s.AppliedAt.IsZero() {
			out[i].AppliedAt = s.AppliedAt.UTC().Format("2006-01-02 15:04:05")
		}
	}
	return out, nil
}
