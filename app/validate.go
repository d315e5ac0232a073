package app

import (
	"net/mail"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

func itoa(n int) string { return strconv.Itoa(n) }

// CharCount counts Unicode characters, the unit of every length bound of the API.
func CharCount(s string) int { return utf8.RuneCountInString(s) }

// validEmail tells a bare address (no display name) that net/mail accepts.
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && CharCount(s) <= 254
}

// NormalizePhone strips "+ ()-" and spaces and answers the digits when there are 5 to 20 of
// them, else "". Matching and deduplication compare normalized phones.
func NormalizePhone(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '+' || r == ' ' || r == '(' || r == ')' || r == '-':
		default:
			return ""
		}
	}
	if n := b.Len(); n < 5 || n > 20 {
		return ""
	}
	return b.String()
}

// NormalizeEmail is the form emails are matched in.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// HeaderSafe tells a value that may reach a mail header: no control characters, since a CR or
// LF would end the field and start another ("Eve\r\nBcc: evil@example.com").
func HeaderSafe(s string) bool { return !strings.ContainsFunc(s, unicode.IsControl) }

// headerSafeProblem adds the problem of a value that may reach a mail header.
func headerSafeProblem(p Problems, field, value string) {
	if !HeaderSafe(value) {
		p.Add(field, "must not contain control characters (line breaks, tabs)")
	}
}
