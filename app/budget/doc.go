// Package budget counts what is held at once (open event streams) against caps: one for the
// whole server and one for each kind of holder (an API key, a member, a client IP, a widget
// session, ...). A holder names itself by a few keys at once, and Acquire takes a slot under
// every one of them or under none, so one key, one member or one address can never hold
// more than its share, and the server-wide cap leaves the rest of the connections to plain
// requests (docs/operations.md, "Streams").
//
// It is deliberately small and knows nothing of HTTP: the API's SSE routes and the public
// widget's streams share one Budget, built once in cli (Runtime.Streams) from events.max_streams
// and the per-kind caps. A streaming route of another package takes its slot the same way
// app/api/streambudget.go does, before it subscribes:
//
//	b.SetLimit("widget_session", 3) // once, at wiring: a kind of its own
//	release, err := b.Acquire(
//		budget.Key{Kind: budget.KindIP, Value: ip}, // shared with the API's streams
//		budget.Key{Kind: "widget_session", Value: sessionID})
//	var full *budget.FullError
//	if errors.As(err, &full) {
//		return api.StreamsFull(w.Header(), full) // 429 with Retry-After, never held open
//	}
//	defer release()
package budget
