package assist

import (
	"fmt"
	"strings"

	"wsapi/app"
)

// memoryPrompt lists what the assistant remembers of the contact, most important first,
// so a returning contact does not have to repeat themselves.
func memoryPrompt(ms []app.Memory) string {
	if len(ms) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nWhat you remember about this contact from earlier conversations:\n")
	for _, m := range ms {
		fmt.Fprintf(&b, "- (%s, importance %.2g) %s\n", strings.ToLower(m.Type), m.Importance, strings.TrimSpace(m.Content))
	}
	return b.String()
}
