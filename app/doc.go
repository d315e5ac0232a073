// Package app is the domain of the workspace messaging API: organizations and their members,
// roles and keys; contacts, segments and chats with their messages; assistants, their
// knowledge and their runs; broadcasts and email; webhooks and the live streams. It holds
// the types, the rules and the errors (codes, never HTTP statuses), and nothing of HTTP or
// SQL: it imports no router and no database driver.
//
// # Layers
//
// Dependencies point inwards, to this package:
//
//   - app/api is HTTP: the route table (routes.go), middleware, thin handlers that decode,
//     call one Service method and encode, and the one mapping of error codes to statuses. It
//     also implements the domain's Links (the public URLs of mailed links and files).
//   - sqlite is the store: it implements Store and every *Tx interface, one file per
//     aggregate, on one writer connection and a reader pool.
//   - The workers run the background work on the app/claim loop, each through the small
//     interface it declares: app/webhook (deliveries), app/mail (broadcast email),
//     app/knowledge (extraction, chunking, crawls), app/assist (assistant runs); app/janitor
//     runs the periodic tasks; app/stream fans stored events out to the SSE routes.
//   - app/safehttp is the SSRF-guarded client of every request to a tenant's URL; the rule
//     it applies (which addresses are forbidden) is app/netguard's.
//   - cli wires it all (Build): it makes the Service with its Deps, the handler and the
//     workers; app/apitest runs the very same wiring over a temporary database for tests.
//
// # Where to start reading
//
// service.go (the Service and what it depends on), store.go (Store, Tx and the list types),
// errors.go (the Error type and its codes), then one area end to end, for example
// contacts.go with app/api/contacts.go and sqlite/contacts.go. A change that others must
// hear of calls Emit (events.go: a webhook event and a stream event in the same
// transaction); work for a worker is a row the worker claims (deliveries.go, sending.go,
// knowledgework.go, runwork.go). docs/architecture.md is the map; docs/internals/ tells the request,
// event and run paths step by step.
package app
