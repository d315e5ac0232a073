package app_test

import (
	"testing"

	"wsapi/app"
)

// TestBlank: what shows nothing is blank, whatever its width or kind; one drawn character
// among it is text.
func TestBlank(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", " ", "\t\r\n", "\u00a0", "\u2003\u3000", "\u200b", "\u200c\u200d\u2060", "\ufeff",
		"\u200e\u200f", "\ufe0f", "\u3164", "\u115f\u1160", "\x00\x7f"} {
		if !app.Blank(s) {
			t.Errorf("%q is not blank", s)
		}
	}
	for _, s := range []string{"x", " x ", "\u200bx", "é", "😀", "\u00ad-", "."} {
		if app.Blank(s) {
			t.Errorf("%q is blank", s)
		}
	}
}
