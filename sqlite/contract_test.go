package sqlite_test

import (
	"testing"

	"wsapi/app"
	"wsapi/app/secret"
	"wsapi/app/storetest"
)

// TestStoreContract runs the backend-neutral contract of app.Store (app/storetest) on
// SQLite: a second backend proves itself by passing the same suite.
func TestStoreContract(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) app.Store {
		db, _ := openDB(t)
		box, err := secret.New(make([]byte, 32))
		if err != nil {
			t.Fatal(err)
		}
		db.SetSealer(box)
		return db
	})
}
