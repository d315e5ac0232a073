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
	quoteIntro = regexp.MustCompile(`(?i)^(on|le|am|el|il|op|em|den|på)\s.{4,300}(wrote|a écrit|schrieb|escribió|ha scritto|scritto|schreef|escreveu|skrev)\s*:?\s*$`)
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

// cutsHere tells whether the quoted mail or the signature starts at line i.
func cutsHere(lines []string, i int, trimmed string) bool {
	if lines[i] == "-- " || trimmed == "--" || separator.MatchString(trimmed) || quoteIntro.MatchString(trimmed) {
		return true
	}
	if i+1 < len(lines) && len(trimmed) < 300 && quoteIntro.MatchString(trimmed+" "+strings.TrimSpace(lines[i+1])) {
		return true // Gmail folded the intro line
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
// scripts, styles and the head go, and quoted parts (blockquote, Gmail's gmail_quote,
// Outlook's divRplyFwdMsg, Yahoo's yahoo_quoted) become "> " lines for Trim to drop.
func HTMLText(src string) string {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return ""
	}
	var b strings.Builder
	var walk func(n *html.Node, quoted bool)
	walk = func(n *html.Node, quoted bool) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "style", "head", "title", "template":
				return
			case "br":
				newline(&b, quoted)
				return
			case "blockquote":
				quoted = true
			}
			if quotedBlock(n) {
				quoted = true
			}
		}
		if n.Type == html.TextNode {
			t := strings.Join(strings.Fields(n.Data), " ")
			if t != "" {
				if strings.HasSuffix(b.String(), "\n") || b.Len() == 0 {
					if quoted {
						b.WriteString("> ")
					}
				} else if !strings.HasSuffix(b.String(), " ") && startsWord(n.Data) {
					b.WriteByte(' ')
				}
				b.WriteString(t)
			}
		}
		block := n.Type == html.ElementNode && isBlock(n.Data)
		if block {
			newline(&b, quoted)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, quoted)
		}
		if block {
			newline(&b, quoted)
		}
	}
	walk(doc, false)
	return strings.TrimSpace(collapseBlank(b.String()))
}

func newline(b *strings.Builder, _ bool) {
	if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n\n") {
		b.WriteByte('\n')
	}
}

func startsWord(raw string) bool {
	return raw != "" && (raw[0] == ' ' || raw[0] == '\n' || raw[0] == '\t')
}

func quotedBlock(n *html.Node) bool {
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
