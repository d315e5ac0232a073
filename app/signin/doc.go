// Package signin holds the rules of members signing in to the web app (app/web): passwords
// hashed with argon2id, one-time links that set a password (the owner's set-up link on first
// start, an admin's invite, a reset), sessions as revocable rows found by the SHA-256 of the
// cookie's token, and the throttle of sign-in attempts per account and per client IP.
//
// It acts through app.Store and the app.SignInTx part of a transaction; it never answers
// HTTP. A session acts as its member with the member's role read on every request, exactly
// as an API key does (app.Principal), so every rule of app.Service applies unchanged.
package signin
