package app_test

import (
	"testing"

	"wsapi/app"
)

// A rating is a digit 1-5 (with /5, stars, punctuation or an emoji around it) or a word of
// the list; anything else, a sentence that holds a digit included, is none.
func TestParseRating(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"5", 5}, {" 1 ", 1}, {"4/5", 4}, {"3 stars", 3}, {"5!", 5}, {"5 👍", 5}, {"2 out of 5", 2},
		{"Great", 5}, {"great!", 5}, {"very bad", 1}, {"Very  good.", 5}, {"ok", 3}, {"bad", 2}, {"good", 4},
		{"0", 0}, {"6", 0}, {"15", 0}, {"55", 0}, {"5 minutes ago I asked", 0}, {"", 0}, {"great service, thanks", 0},
		{"what are your prices?", 0},
	} {
		got, ok := app.ParseRating(c.in)
		if ok != (c.want > 0) || got != c.want {
			t.Errorf("ParseRating(%q) = %d, %v; want %d", c.in, got, ok, c.want)
		}
	}
}

// An open question ends with a question mark, closing quotes, brackets and spaces aside.
func TestIsOpenQuestion(t *testing.T) {
	for in, want := range map[string]bool{
		"Which plan are you on?": true, "Which plan?  \n": true, `Did you say "yes?"`: true, "(any other question?)": true,
		"これでよろしいですか？": true, "Here is the answer.": false, "Is it? Here it is.": false, "": false,
	} {
		if got := app.IsOpenQuestion(in); got != want {
			t.Errorf("IsOpenQuestion(%q) = %v, want %v", in, got, want)
		}
	}
}
