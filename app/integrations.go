package app

import "slices"

// Integration ids: the channel types of contacts and the integration of chats and
// broadcasts. The spec names internal, custom and email; the nine provider values are ours.
var Integrations = []string{
	"internal", "custom", "email",
	"whatsapp", "telegram", "messenger", "instagram", "sms", "slack", "gmail", "outlook", "google_calendar",
}

// Integration ids the rules name.
const (
	IntegrationInternal = "internal"
	IntegrationCustom   = "custom"
	IntegrationEmail    = "email"
)

// ValidIntegration tells a known integration id.
func ValidIntegration(id string) bool {
	return slices.Contains(Integrations, id)
}
