package csat

import (
	"strings"
	"unicode"
)

// Question is the assistant's message that asks the contact of a chat just closed for a
// rating, when its assistant has enable_auto_csat.
const Question = "How would you rate this conversation? Please reply with a number from 1 (very bad) to 5 (excellent)."

// ratingWords maps the words a contact may answer the rating question with to a score. A
// rating is a digit or one of these; every model (builtin and remote) uses this list, so a
// rating never costs a model call (docs/assistants.md, "Automation").
var ratingWords = map[string]int{
	"terrible": 1, "awful": 1, "horrible": 1, "very bad": 1, "worst": 1,
	"bad": 2, "poor": 2, "not good": 2,
	"ok": 3, "okay": 3, "fine": 3, "average": 3, "so so": 3, "meh": 3,
	"good": 4, "nice": 4, "very good": 5,
	"great": 5, "excellent": 5, "amazing": 5, "perfect": 5, "awesome": 5, "fantastic": 5,
}

// ParseRating reads a reply to the rating question: a digit 1-5 ("5", "5/5", "4 stars") or
// one of ratingWords, case and punctuation aside. Anything else is no rating.
func ParseRating(text string) (int, bool) {
	t := strings.ToLower(strings.TrimSpace(text))
	if t == "" {
		return 0, false
	}
	if d := t[0]; d >= '1' && d <= '5' && ratingTail(t[1:]) {
		return int(d - '0'), true
	}
	words := strings.FieldsFunc(t, func(r rune) bool { return !unicode.IsLetter(r) })
	if n, ok := ratingWords[strings.Join(words, " ")]; ok {
		return n, true
	}
	return 0, false
}

// ratingTail tells whether what follows a digit still reads as a rating: nothing, "/5",
// "stars", punctuation or an emoji, but not another digit ("15") or a sentence.
func ratingTail(rest string) bool {
	rest = strings.TrimSpace(rest)
	for _, suffix := range []string{"/5", "/ 5", "out of 5", "stars", "star"} {
		rest = strings.TrimSpace(strings.TrimPrefix(rest, suffix))
	}
	for _, r := range rest {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
