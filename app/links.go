package app

// Links builds the public URLs the domain hands out: the links of mailed messages and the
// URLs of chat files. The HTTP layer implements it next to its route table (app/api), so
// the domain names no route path; tokens come signed, the links only place them.
type Links interface {
	// Unsubscribe is the link a recipient follows to unsubscribe.
	Unsubscribe(token string) string
	// TrackOpen is the tracking pixel of an opened email.
	TrackOpen(token string) string
	// TrackClick is the redirect that records a click before it goes on.
	TrackClick(token string) string
	// ChatFile is where a member downloads a chat's file.
	ChatFile(orgID, chatID, fileID string) string
	// WidgetScript is the web widget's loader, the src of the snippet a site embeds.
	WidgetScript() string
}
