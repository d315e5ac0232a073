package email

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/emersion/go-message"
	"golang.org/x/text/encoding/charmap"
)

// What is done for mail that breaks the standards in the ways real mail does, so a member
// still reads what the contact wrote.

// legacyText answers s as UTF-8: text that is not (a raw 8-bit header, a body in a charset
// nobody knows) is read as Windows-1252, the legacy charset such mail is nearly always in,
// as the WHATWG Encoding Standard reads unlabelled legacy text. Valid UTF-8 is left alone.
func legacyText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	out, err := charmap.Windows1252.NewDecoder().String(s)
	if err != nil {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	return out
}

// repairHeader reads the fields a member sees (the sender's name, the subject) as
// legacyText when they were sent as raw 8-bit bytes instead of RFC 2047 words.
func repairHeader(h *message.Header) {
	for _, k := range []string{"From", "Reply-To", "Subject"} {
		if v := h.Get(k); v != "" && !utf8.ValidString(v) {
			h.Set(k, legacyText(v))
		}
	}
}

// repairMultipart walks again a multipart message whose walk found nothing at all: its
// parts are delimited by a boundary other than the one declared (the first "--" line of the
// body names it), or it declares none (the body is then read as plain text).
func (w *walker) repairMultipart(h message.Header, raw []byte) {
	body := bodyOf(raw)
	if boundary := firstDelimiter(body); boundary != "" {
		ct, params, err := h.ContentType()
		if err != nil || params == nil { // a Content-Type that does not parse at all
			ct, params = "multipart/mixed", map[string]string{}
		}
		params["boundary"] = boundary
		h.SetContentType(ct, params)
		if e, err := message.New(h, bytes.NewReader(body)); e != nil {
			_ = e.Walk(w.visit)
			if err == nil && (w.text != "" || w.html != "" || len(w.p.Files) > 0) {
				return
			}
		}
	}
	w.text = legacyText(string(body))
}

// bodyOf is what follows a raw message's header.
func bodyOf(raw []byte) []byte {
	crlf, lf := bytes.Index(raw, []byte("\r\n\r\n")), bytes.Index(raw, []byte("\n\n"))
	switch {
	case crlf >= 0 && (lf < 0 || crlf < lf):
		return raw[crlf+4:]
	case lf >= 0:
		return raw[lf+2:]
	}
	return nil
}

// firstDelimiter is the boundary of the body's first "--boundary" line ("" when none comes
// before the first 100 lines).
func firstDelimiter(body []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(body))
	for i := 0; i < 100 && sc.Scan(); i++ {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if b, ok := strings.CutPrefix(line, "--"); ok && b != "" && len(b) <= 70 && !strings.HasSuffix(b, "--") {
			return b
		}
	}
	return ""
}

// qmailRecipient is a recipient paragraph's first line in qmail's bounce format (QSBMF).
var qmailRecipient = regexp.MustCompile(`^<([^<>\s]+@[^<>\s]+)>:$`)

// qmailBounce reads a bounce in qmail's plain-text format (QSBMF, not RFC 3464): its failed
// recipients, or nil when text is not one. A delay notice is not a bounce.
func qmailBounce(text string) *DSN {
	if !strings.HasPrefix(text, "Hi. This is the qmail") ||
		!strings.Contains(text, "I'm afraid I wasn't able to deliver your message to the following addresses.") {
		return nil
	}
	d := &DSN{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "--- ") { // "--- Below this line is a copy of the message."
			break
		}
		if m := qmailRecipient.FindStringSubmatch(line); m != nil && len(d.Failed) < 100 {
			d.Failed = append(d.Failed, m[1])
		}
	}
	if len(d.Failed) == 0 {
		return nil
	}
	return d
}
