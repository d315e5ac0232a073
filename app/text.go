package app

import (
	"strings"
	"unicode"
)

// Blank tells text that shows nothing: empty, or made only of whitespace (Unicode's
// White_Space: spaces of every width, tabs, line breaks), control characters, and the
// characters a renderer does not draw (Unicode's format characters such as the zero-width
// space U+200B, joiners and directional marks, and the other default-ignorable code points
// such as variation selectors and the Hangul fillers). A note of "\u200b" is as empty to
// its reader as a note of "   ", so the API's "1 to N characters" counts only text that
// is not blank (docs/api-conventions.md, "Text").
func Blank(s string) bool { return strings.IndexFunc(s, drawn) < 0 }

// drawn tells a character that shows.
func drawn(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.IsControl(r) && !unicode.In(r, unicode.Cf,
		unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// validateText is the one rule of a bounded text field: a required one ("1 to max
// characters") must not be blank ("is required" when empty or absent, "must not be blank"
// when it holds only blank characters), and any one holds at most max characters
// (CharCount). An optional text (only "at most max") may be empty or blank: it has no lower
// bound to fall under.
func validateText(p Problems, field, s string, required bool, max int) {
	switch {
	case s == "" && required:
		p.Add(field, "is required")
	case required && Blank(s):
		p.Add(field, "must not be blank")
	case CharCount(s) > max:
		p.Add(field, "must be at most "+itoa(max)+" characters")
	}
}
