package sqlite

import (
	"database/sql"
	"errors"
	"fmt"

	"wsapi/app"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// mapErr lets UNIQUE constraints decide conflicts (never check-then-insert) and wraps the
// rest with %w so errors.Is keeps working up the stack.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return app.Conflict("an object with the same unique value already exists")
		}
	}
	if _, ok := app.AsError(err); ok {
		return err
	}
	return fmt.Errorf("sqlite: %w", err)
}

// one maps sql.ErrNoRows of a single-row read to not_found.
func one(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return app.NotFound(what)
	}
	return mapErr(err)
}
