package channel

import (
	"strings"

	"wsapi/app"
)

// Text is what a reply says to the contact on a channel that carries text: its text parts,
// trimmed, one paragraph each (tool calls, citations and files are not text).
func Text(m app.Message) string {
	var parts []string
	for _, t := range m.Messages {
		for _, p := range t.Parts {
			if p.Type == "text" && strings.TrimSpace(p.Text) != "" {
				parts = append(parts, strings.TrimSpace(p.Text))
			}
		}
	}
	return strings.Join(parts, "\n\n")
}
