// Package connection holds the rules of the organization's connections to third-party
// systems: create, read, list and delete with secrets sealed (a config entry that looks like
// a credential is refused, so it cannot leak in answers), the OAuth authorization and its
// validation (a signed state spent once, the code exchanged by app/oauth), and the fields of
// the built-in actions with options from the organization's data. It works over app's store
// (Service.Store) and types (app.Connection, app.ConnectionTx); app/api's connection routes
// call it.
package connection
