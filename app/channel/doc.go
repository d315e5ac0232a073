// Package channel declares what a channel's connector does, so that every channel (the web
// widget, email, Telegram, WhatsApp) plugs into the same places: the integration's set-up
// check (app.Connector), the delivery worker (Sender), the public hook routes (Inbound) and
// media downloads (MediaFetcher). Each channel lives in a package of its own beside this one
// (app/channel/widget, ...) and implements the parts it needs; cli wires them by integration
// type. A test can run any connector against its protocol's server without the others.
package channel
