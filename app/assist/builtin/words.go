package builtin

import "strings"

// phrases are the builtin model's own sentences in one language.
type phrases struct {
	found   string
	from    string // takes the content title
	nothing string
	handoff string
}

// languages the builtin speaks; any other answers in English.
var languages = map[string]phrases{
	"en": {"Here is what I found:", "From \"%s\":", "I could not find anything about that in my knowledge.",
		"I will pass you to a person who can help."},
	"es": {"Esto es lo que encontré:", "De \"%s\":", "No encontré nada sobre eso en mi conocimiento.",
		"Te paso con una persona que pueda ayudarte."},
	"fr": {"Voici ce que j'ai trouvé :", "Extrait de \"%s\" :", "Je n'ai rien trouvé à ce sujet dans mes connaissances.",
		"Je vous mets en relation avec une personne qui pourra vous aider."},
	"de": {"Das habe ich gefunden:", "Aus \"%s\":", "Dazu habe ich in meinem Wissen nichts gefunden.",
		"Ich verbinde Sie mit einer Person, die helfen kann."},
	"pt": {"Aqui está o que encontrei:", "De \"%s\":", "Não encontrei nada sobre isso no meu conhecimento.",
		"Vou passar você para uma pessoa que pode ajudar."},
}

// phrasesFor picks by the language code's first part (pt-BR speaks pt).
func phrasesFor(lang string) phrases {
	base, _, _ := strings.Cut(strings.ToLower(lang), "-")
	if p, ok := languages[base]; ok {
		return p
	}
	return languages["en"]
}

// stopwords are words too common to search for, in the languages above.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and for are you your what when where which who how can does did has have
		that this with from about there their they them will would could should our not but any all
		el la los las una uno unos unas que por para con del como cual cuando donde son está estan sus
		les des une est pour avec dans que qui quoi comment quand sont vous nous mais pas
		der die das und ist ein eine für mit wie was wann sind sie ich
		não uma com para por como quando onde são você seu sua`) {
		stopwords[w] = true
	}
}
