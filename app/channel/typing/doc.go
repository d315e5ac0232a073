// Package typing shows a contact that an answer is being written while the assistant's run
// works, on the channels that can (channel.Typer: Telegram's sendChatAction typing). It sits
// in front of the run worker's app.Live (the stream hub): Begin starts a goroutine per run
// that calls the chat's Typer every few seconds, Done (always called when a run ends) stops
// it, and Max bounds it whatever happens. A failure is logged at debug level only: the
// indicator is a courtesy, never a reason to fail anything.
package typing
