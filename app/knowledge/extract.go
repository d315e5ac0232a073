// Package knowledge is the processor of assistants' knowledge: it turns TEXT, FILE (txt, md,
// html, pdf) and URL content into chunks of about 1,000 characters, crawling same-host links
// for URLs through the SSRF-guarded client.
package knowledge

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
	"golang.org/x/net/html"
)

// ChunkSize is the target length of a chunk in characters.
const ChunkSize = 1000

// Chunk splits text on paragraph boundaries into pieces of about size characters; a single
// paragraph longer than size is cut at spaces.
func Chunk(text string, size int) []string {
	var chunks []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			chunks = append(chunks, s)
		}
		cur.Reset()
	}
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		for _, piece := range splitLong(para, size) {
			if cur.Len() > 0 && utf8.RuneCountInString(cur.String())+utf8.RuneCountInString(piece)+2 > size {
				flush()
			}
			if cur.Len() > 0 {
				cur.WriteString("\n\n")
			}
			cur.WriteString(piece)
		}
	}
	flush()
	return chunks
}

func splitLong(para string, size int) []string {
	runes := []rune(para)
	var out []string
	for len(runes) > size {
		cut := size
		for i := size; i > size/2; i-- {
			if runes[i] == ' ' {
				cut = i
				break
			}
		}
		out = append(out, strings.TrimSpace(string(runes[:cut])))
		runes = runes[cut:]
	}
	return append(out, strings.TrimSpace(string(runes)))
}

// errUnreadablePDF is what a PDF that the parser cannot handle fails with; the parser's own
// detail, when it has one, follows it.
const errUnreadablePDF = "could not read this PDF"

// pdfText extracts the text of a PDF page by page. It refuses a file that claims more than
// maxPages pages before reading any (a 600-byte file can claim two billion) and stops once
// the text passes maxBytes. It runs only in the extraction child (child.go), which bounds its
// time and memory: the parser can loop or recurse without end on hostile input.
func pdfText(data []byte, maxPages int, maxBytes int64) (string, error) {
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("%s: %w", errUnreadablePDF, err)
	}
	n := r.NumPage()
	if n > maxPages {
		return "", fmt.Errorf("%s: it has %d pages, over knowledge.max_pages_per_file (%d)", errUnreadablePDF, n, maxPages)
	}
	var b strings.Builder
	fonts := map[string]*pdf.Font{}
	for i := 1; i <= n; i++ {
		p := r.Page(i)
		for _, name := range p.Fonts() { // each font's charmap parsed once for the whole file
			if _, ok := fonts[name]; !ok {
				f := p.Font(name)
				fonts[name] = &f
			}
		}
		text, err := p.GetPlainText(fonts)
		if err != nil {
			return "", fmt.Errorf("%s: page %d: %w", errUnreadablePDF, i, err)
		}
		b.WriteString(text)
		if int64(b.Len()) > maxBytes {
			return "", errTextTooLarge(maxBytes)
		}
	}
	return b.String(), nil
}

// errTextTooLarge fails a file whose text would pass knowledge.max_file_bytes.
func errTextTooLarge(maxBytes int64) error {
	return fmt.Errorf("the extracted text is larger than knowledge.max_file_bytes (%d bytes)", maxBytes)
}

// Page is the text, title and links of an HTML page.
type Page struct {
	Title string
	Text  string
	Links []*url.URL
}

// skipped are elements whose text is not content.
var skipped = map[string]bool{"script": true, "style": true, "noscript": true, "template": true, "svg": true, "title": true}

// blocks end a paragraph.
var blocks = map[string]bool{"p": true, "div": true, "section": true, "article": true, "li": true, "tr": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "br": true, "pre": true, "blockquote": true,
	"header": true, "footer": true, "main": true, "table": true, "ul": true, "ol": true}

// parseHTML turns a page into text with paragraph breaks, its title and its links resolved
// against base. It runs only in the extraction child (child.go), which bounds it.
func parseHTML(r io.Reader, base *url.URL) (Page, error) {
	doc, err := html.Parse(r)
	if err != nil {
		return Page{}, fmt.Errorf("cannot parse HTML: %w", err)
	}
	var p Page
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if n.Data == "title" && n.FirstChild != nil && p.Title == "" {
				p.Title = strings.TrimSpace(n.FirstChild.Data)
			}
			if n.Data == "a" {
				p.addLink(n, base)
			}
			if skipped[n.Data] {
				return
			}
		}
		if n.Type == html.TextNode {
			if t := strings.Join(strings.Fields(n.Data), " "); t != "" {
				b.WriteString(t + " ")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && blocks[n.Data] {
			b.WriteString("\n\n")
		}
	}
	walk(doc)
	p.Text = b.String()
	return p, nil
}

func (p *Page) addLink(n *html.Node, base *url.URL) {
	for _, a := range n.Attr {
		if a.Key != "href" || base == nil {
			continue
		}
		u, err := base.Parse(strings.TrimSpace(a.Val))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			continue
		}
		u.Fragment = ""
		p.Links = append(p.Links, u)
	}
}
