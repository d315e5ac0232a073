package builtin

import (
	"strings"

	"wsapi/app/assist"
)

// followUps is the builtin's follow-up sentence per language; it searches nothing, since
// there is no new question. It asks no question, so it never schedules another follow-up.
var followUps = map[string]string{
	"en": "Just checking in: let me know if you still need help with this.",
	"es": "Solo quería saber: avísame si todavía necesitas ayuda con esto.",
	"fr": "Je reviens vers vous : dites-moi si vous avez encore besoin d'aide à ce sujet.",
	"de": "Ich wollte kurz nachfragen: Sagen Sie mir Bescheid, wenn Sie noch Hilfe brauchen.",
	"pt": "Só para saber: avise-me se ainda precisar de ajuda com isso.",
}

// followUp writes the follow-up in the request's language (else English).
func followUp(req assist.Request, onText func(string)) assist.Result {
	base, _, _ := strings.Cut(strings.ToLower(req.Language), "-")
	text, ok := followUps[base]
	if !ok {
		text = followUps["en"]
	}
	onText(text)
	return assist.Result{Text: text, StopReason: "stop"}
}
