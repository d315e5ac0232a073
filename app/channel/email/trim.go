package email

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// What a reply quotes is not its new text: Trim keeps what the person wrote above the quote
// (docs/channels.md, "What is trimmed").
var (
	// "On Mon, 5 Jan 2026 at 10:00, Ada <ada@example.com> wrote:" (Gmail, Apple Mail,
	// Thunderbird), with the usual translations; Gmail may fold it over two lines.
	quoteIntro = regexp.MustCompile(`(?i)^(on|le|am|el|il|op|em|den|på)\s.{4,300}(wrote|a écrit|schrieb|escribió|ha scritto|scritto|schreef|escreveu|skrev)(\s.{0,300})?\s*:\s*$|(?i)^on\s.{4,300}\swrote$`)
	// Outlook's header block of the quoted mail ("From: ..." then "Sent:" or "Date:").
	outlookFrom = regexp.MustCompile(`(?i)^\*?(from|von|de|da|van)\s*:\*?\s`)
	outlookNext = regexp.MustCompile(`(?i)^\*?(sent|date|gesendet|envoyé|enviado|inviato|verzonden|to|an|à|para|a)\s*:\*?\s`)
	// Separators: Outlook's rule and "Original Message" lines.
	separator = regexp.MustCompile(`(?i)^(_{20,}|-{3,}\s*(original message|ursprüngliche nachricht|message d'origine|mensaje original)\s*-{3,})\s*$`)
	// Phone clients' one-line signatures.
	mobileSig = regexp.MustCompile(`(?i)^(sent from my \S.*|get outlook for \S.*|sent from (mail|yahoo mail) for .*)$`)
)

// Trim keeps the new part of a reply's text: everything before the quoted mail's intro line
// ("On ... wrote:"), Outlook's header block or separator, and the "-- " signature; quoted
// lines ("> ...") and phone signatures go too. A mail that is nothing but quote keeps its text.
func Trim(text string) string {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(text, "\n")
	var kept []string
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t")
		trimmed := strings.TrimSpace(line)
		if cutsHere(lines, i, trimmed) {
			break
		}
		if strings.HasPrefix(trimmed, ">") || mobileSig.MatchString(trimmed) {
			continue
		}
		kept = append(kept, line)
	}
	out := strings.TrimSpace(strings.Join(kept, "\n"))
	if out == "" {
		return strings.TrimSpace(text)
	}
	return collapseBlank(out)
}

// introWords are the words quoteIntro's line starts with, before a space.
var introWords = []string{"on", "le", "am", "el", "il", "op", "em", "den", "på"}

// mayIntro tells whether a line starts as quoteIntro's do. The expression (its .{4,300}
// spans) cost a sixth of the CPU of a server taking 100 mails a second when every line of
// every mail went through it (bench/email); a line that fails this cannot match it.
func mayIntro(line string) bool {
	for _, w := range introWords {
		if len(line) > len(w) && strings.EqualFold(line[:len(w)], w) && strings.ContainsRune(" \t\n\f\r", rune(line[len(w)])) {
			return true
		}
	}
	return false
}

// cutsHere tells whether the quoted mail or the signature starts at line i.
func cutsHere(lines []string, i int, trimmed string) bool {
	if lines[i] == "-- " || trimmed == "--" || separator.MatchString(trimmed) {
		return true
	}
	if mayIntro(trimmed) {
		if quoteIntro.MatchString(trimmed) {
			return true
		}
		if i+1 < len(lines) && len(trimmed) < 300 && quoteIntro.MatchString(trimmed+" "+strings.TrimSpace(lines[i+1])) {
			return true // Gmail folded the intro line
		}
	}
	if outlookFrom.MatchString(trimmed) {
		for j := i + 1; j < len(lines) && j <= i+3; j++ {
			if outlookNext.MatchString(strings.TrimSpace(lines[j])) {
				return true
			}
		}
	}
	return false
}

func collapseBlank(s string) string {
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return s
}

// HTMLText turns an HTML mail into plain text: blocks become lines, links keep their text,
// scripts, styles and the head go, blockquotes become "> " lines, and the quoted mail of
// Gmail (gmail_quote), Outlook (divRplyFwdMsg) and Yahoo (yahoo_quoted) becomes a separator
// line where Trim cuts.
func HTMLText(src string) string {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return ""
	}
	h := htmlText{}
	h.walk(doc, false)
	return strings.TrimSpace(collapseBlank(h.b.String()))
}

// htmlText writes text as the walk meets it; space is a blank owed before the next word.
type htmlText struct {
	b     strings.Builder
	space bool
}

func (h *htmlText) walk(n *html.Node, quoted bool) {
	if n.Type == html.ElementNode {
		switch {
		case n.Data == "script" || n.Data == "style" || n.Data == "head" || n.Data == "title" || n.Data == "template":
			return
		case n.Data == "br":
			h.newline()
			return
		case quotedBlock(n):
			h.newline()
			h.b.WriteString("-----Original Message-----\n")
			return
		case n.Data == "blockquote":
			quoted = true
		}
	}
	if n.Type == html.TextNode {
		h.text(n.Data, quoted)
	}
	block := n.Type == html.ElementNode && isBlock(n.Data)
	if block {
		h.newline()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		h.walk(c, quoted)
	}
	if block {
		h.newline()
	}
}

func (h *htmlText) text(raw string, quoted bool) {
	t := strings.Join(strings.Fields(raw), " ")
	if t == "" {
		h.space = h.space || raw != ""
		return
	}
	atLine := h.b.Len() == 0 || strings.HasSuffix(h.b.String(), "\n")
	switch {
	case atLine && quoted:
		h.b.WriteString("> ")
	case !atLine && (h.space || startsWord(raw)):
		h.b.WriteByte(' ')
	}
	h.b.WriteString(t)
	h.space = endsWord(raw)
}

func (h *htmlText) newline() {
	h.space = false
	if h.b.Len() > 0 && !strings.HasSuffix(h.b.String(), "\n\n") {
		h.b.WriteByte('\n')
	}
}

func startsWord(raw string) bool {
	return raw != "" && (raw[0] == ' ' || raw[0] == '\n' || raw[0] == '\t' || raw[0] == '\r')
}

func endsWord(raw string) bool {
	c := raw[len(raw)-1]
	return c == ' ' || c == '\n' || c == '\t' || c == '\r'
}

func quotedBlock(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	for _, a := range n.Attr {
		if a.Key == "class" || a.Key == "id" {
			for _, c := range []string{"gmail_quote", "divRplyFwdMsg", "yahoo_quoted", "moz-cite-prefix", "OutlookMessageHeader"} {
				if strings.Contains(a.Val, c) {
					return true
				}
			}
		}
	}
	return false
}

func isBlock(tag string) bool {
	switch tag {
	case "p", "div", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol", "pre", "hr", "section",
		"article", "header", "footer", "blockquote":
		return true
	}
	return false
}
