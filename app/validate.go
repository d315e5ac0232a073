package app

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

func itoa(n int) string { return strconv.Itoa(n) }

// CharCount counts Unicode characters, the unit of every length bound of the API.
func CharCount(s string) int { return utf8.RuneCountInString(s) }

// EmailPattern is the one rule for an email address, the same in the OpenAPI document (the
// `pattern` beside `format: email`): a local part of dot-separated atoms (RFC 5322 atext:
// letters, digits and !#$%&'*+/=?^_`{|}~-; no quoted strings), and a domain of at least two
// host labels (letters, digits, inner hyphens). It is the form JSON Schema validators
// check `format: email` with (ajv's), so no answer of the API breaks a client's validator:
// "owner@localhost" and quoted local parts, which net/mail takes, are not addresses here.
const EmailPattern = "^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*" +
	"@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$"

var emailRE = regexp.MustCompile(EmailPattern)

// validEmail tells a bare address (no display name) of EmailPattern, at most 254 characters
// with a local part of at most 64 (RFC 5321's limits).
func validEmail(s string) bool {
	local, _, _ := strings.Cut(s, "@")
	return len(s) <= 254 && len(local) <= 64 && emailRE.MatchString(s)
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

// SearchTerms splits a search into the words every search route looks for. Spaces and
// control characters separate words: a full-text query quotes each word (so FTS5 operators
// such as AND, NEAR( or * are plain words), and FTS5 would read a NUL inside a quoted word
// as its end.
func SearchTerms(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
}

// maxSearch bounds every search parameter, in characters.
const maxSearch = 256

// validateSearch checks the search parameter of a route: at most 256 characters and, when
// given, at least one word. A search of only whitespace is refused rather than read as "no
// filter" (which would answer everything) or handed to FTS5 as an empty query.
func validateSearch(p Problems, s string, required bool) {
	switch {
	case CharCount(s) > maxSearch:
		p.Add("search", "must be at most 256 characters")
	case s == "" && required:
		p.Add("search", "is required")
	case s != "" && len(SearchTerms(s)) == 0:
		p.Add("search", "must hold a word, not only spaces")
	}
}

// PhoneDigits answers the digits of a search that is a phone number, written any way
// ("5551234567", "+1 (555) 123-4567", "555 123"): only digits, spaces and + ( ) - . with at
// least 3 digits. Otherwise "": a search with words in it is words. Every search that
// looks at phones (contacts list, inbox) matches these digits inside a channel's normalized
// phone, so one rule finds "+1 555 123 4567" from "5551234567" everywhere.
func PhoneDigits(search string) string {
	var b strings.Builder
	for _, r := range search {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case strings.ContainsRune(" +()-.", r):
		default:
			return ""
		}
	}
	if b.Len() < 3 {
		return ""
	}
	return b.String()
}
