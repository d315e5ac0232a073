package app

// Option is one value of a value set with its label in the asked language.
type Option struct {
	Value string `json:"value"`
	Label string `json:"label"`
	// Available is set on the integration_id set only: whether this server can connect the
	// channel (false: not available yet, so no client offers it).
	Available *bool `json:"available,omitempty"`
}

// Deployable tells whether an assistant can be deployed on integration type t with this
// server: the widget and custom always, the others once their connector is wired.
func (s *Service) Deployable(t string) bool {
	return t == IntegrationInternal || t == IntegrationCustom || s.d.Connectors[t] != nil
}

// MediaFormatNames is the spec's Media format value set, in its order (the keys of
// MediaFormats).
var MediaFormatNames = []string{"opus-rtp", "opus-raw", "opus-ogg", "pcm-wav", "pcm-raw", "mp3", "m4a", "mulaw"}

// FieldTypes is the spec's Field type value set.
var FieldTypes = []string{"object", "id", "string", "number", "boolean", "date", "datetime", "time", "enum", "file",
	"content", "connection", "record", "contact", "user", "chat", "segment", "assistant", "agent"}

// ConnectionTypes are the generic connection types of the spec and the provider-named ones.
var ConnectionTypes = []string{"SCHEDULER", "WORKFLOWS", "TOOLS", "FILES", "EMAILS", "HTTP_CREDENTIALS", "AUDIENCE",
	"PHONE", "OAUTH", "MCP", "HUBSPOT", "SALESFORCE", "GOOGLE", "MICROSOFT", "SLACK", "ZENDESK"}
