// Package storetest is the contract of app.Store and app.Tx, as a test suite any backend
// runs against itself: Run(t, open) with a constructor of fresh, migrated, empty stores.
// SQLite runs it (sqlite/contract_test.go); a second backend (PostgreSQL, say) is proved by
// passing the same suite. What it checks is what the domain relies on without saying so in
// each call: writes are serialized, stream sequence numbers follow commit order, claims lease
// each piece to one claimer until the lease lapses, cursors walk without gaps or repeats,
// counters follow every write, and search finds by name. docs/decisions/store-backends.md
// says what a second backend must provide besides.
package storetest
