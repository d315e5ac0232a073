// Package channel declares what a channel's connector does, so that every channel (the web
// widget, email, Telegram, WhatsApp) plugs into the same places: the integration's set-up
// check (app.Connector, and app.Remover to undo it), the delivery worker (Sender, with
// Permanent and RetryAfter to classify failures), the messaging apps' hook and its inbound
// worker (Inbound: CheckRequest in the hook, Parse later on the stored body; app/channel/
// inbound), media downloads (MediaFetcher) and the typing indicator (Typer; app/channel/
// typing). Each channel lives in a package of its own beside this one (app/channel/widget,
// app/channel/telegram, ...) and implements the parts it needs; cli registers one value per
// integration type in every role it plays. A test can run any connector against its
// protocol's server without the others.
package channel
